/** The database did not answer (connection refused, locked for too long, pool exhausted). Maps to 503. */
export class StorageUnavailableError extends Error {
  override readonly name: string = 'StorageUnavailableError';
}

/**
 * Another connection holds the write lock (SQLite) and the work gave up waiting, or was told not to wait.
 * Still a 503 to a request; a deferrable write (API key last use) is simply tried again later.
 */
export class StorageBusyError extends StorageUnavailableError {
  override readonly name: string = 'StorageBusyError';
}

/**
 * The database refused text it cannot hold (PostgreSQL's 22021 `character_not_in_repertoire`, NUL in text,
 * and 22P05 `untranslatable_character`). The contract's rule for written text keeps such text out of every
 * field and parameter; should some path still carry it here, it is the request's fault: a 400, never a 500.
 */
export class StorageRejectedTextError extends Error {
  override readonly name: string = 'StorageRejectedTextError';
}

/**
 * A write broke a constraint because of what another write did meanwhile: what it refers to is gone (a foreign
 * key: a session for an account deleted a moment before), or what it adds exists already (a unique key). Never
 * a 500: callers that know what it means answer with that (401, 404, 409); anywhere else it is a 409.
 */
export class StorageConflictError extends Error {
  override readonly name = 'StorageConflictError';
  constructor(
    readonly reason: 'missing-reference' | 'duplicate',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
