export { ReleasesClient } from './client.js';
export type { ClientOptions, FetchOptions, RawRequest, RequestOptions } from './options.js';
export type { HeaderValues } from './headers.js';
// Values, not only types: a type-only export of a class is flattened into a value export in the bundled .d.ts,
// which would promise an import that is not there at run time.
export {
  AuthResource,
  FacetsResource,
  HealthResource,
  KeysResource,
  ReleasesResource,
  SessionsResource,
} from './resources.js';
export { APIPromise, type WithResponse } from './api-promise.js';
export { ReleasePage, ReleasePagePromise, type PageFetcher } from './pagination.js';
export {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  ReleasesError,
  ResponseValidationError,
  ServiceUnavailableError,
  TimeoutError,
} from './errors.js';
export type { LogLevel, Logger } from './logger.js';
export { VERSION } from './version.js';
export type * from './types.js';
