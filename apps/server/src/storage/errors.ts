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
