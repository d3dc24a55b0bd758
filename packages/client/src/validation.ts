import {
  ActiveSessionListResponseSchema,
  ApiKeyListResponseSchema,
  ApiKeyResponseSchema,
  AuthResponseSchema,
  CreatedApiKeyResponseSchema,
  FacetsResponseSchema,
  PasswordResetRequestedResponseSchema,
  ReleaseListResponseSchema,
  ReleaseResponseSchema,
  SessionInfoResponseSchema,
} from '@releases/contract/schemas';
import { z } from 'zod';
import { ResponseValidationError } from './errors.js';
import type { ResponseValidator, ValidatedOperation } from './types.js';

/*
 * Opt-in response validation against the contract's zod schemas. Its own entry point, so zod is only in
 * bundles that ask for it. Unknown fields are accepted (a newer server may add some); missing or mistyped
 * ones are not. The error class lives in the chunk both entry points share: one `ReleasesError` family.
 */
const schemas: Record<ValidatedOperation, z.ZodTypeAny> = {
  'releases.list': ReleaseListResponseSchema,
  'releases.get': ReleaseResponseSchema,
  'facets.list': FacetsResponseSchema,
  'health.check': z.literal('OK'),
  'auth.signup': AuthResponseSchema,
  'auth.login': AuthResponseSchema,
  'auth.session': SessionInfoResponseSchema,
  'auth.listSessions': ActiveSessionListResponseSchema,
  'auth.requestPasswordReset': PasswordResetRequestedResponseSchema,
  'keys.list': ApiKeyListResponseSchema,
  'keys.create': CreatedApiKeyResponseSchema,
  'keys.revoke': ApiKeyResponseSchema,
};

export { ResponseValidationError };

/**
 * Checks each response body against the API contract; throws `ResponseValidationError` naming the first
 * mismatched fields. Pass it as the client's `validateResponses` option.
 * @example
 * import { validateResponses } from '@releases/client/validation';
 * const client = new ReleasesClient({ validateResponses });
 */
export const validateResponses: ResponseValidator = (operation, body) => {
  const result = schemas[operation].safeParse(body);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
    throw new ResponseValidationError(
      `The ${operation} response does not match the API contract: ${issues.slice(0, 5).join('; ')}`,
    );
  }
};
