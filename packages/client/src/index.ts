export { ReleasesClient, type ClientOptions, type RawRequest, type RequestOptions } from './client.js';
export { APIPromise, type WithResponse } from './api-promise.js';
export { ReleasePage, ReleasePagePromise } from './pagination.js';
export {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ReleasesError,
  ServiceUnavailableError,
  TimeoutError,
} from './errors.js';
export type { LogLevel, Logger } from './logger.js';
export type * from './types.js';
