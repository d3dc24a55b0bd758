/** Header names shared by server and clients (lowercase, as Node exposes them). */
export const headerNames = {
  apiKey: 'x-api-key',
  requestId: 'x-request-id',
  authorization: 'authorization',
  retryAfter: 'retry-after',
  rateLimit: 'ratelimit',
  rateLimitPolicy: 'ratelimit-policy',
  link: 'link',
} as const;

/** Scheme names as they appear in the OpenAPI document (`ApiKeyAuth` is the interface's own name). */
export const securitySchemes = {
  apiKey: 'ApiKeyAuth',
  bearer: 'BearerAuth',
} as const;
