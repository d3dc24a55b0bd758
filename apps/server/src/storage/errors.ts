/** The database did not answer (connection refused, locked for too long, pool exhausted). Maps to 503. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
}

/** A write was refused because of its data (constraint, bad row). The message names the row. */
export class StorageConflictError extends Error {
  override readonly name = 'StorageConflictError';
}
