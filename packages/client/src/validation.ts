import { FacetsResponseSchema, ReleaseListResponseSchema, ReleaseResponseSchema } from '@releases/contract/schemas';
import { z } from 'zod';
import { ReleasesError } from './errors.js';
import type { ResponseValidator, ValidatedOperation } from './types.js';

/**
 * Opt-in response validation against the contract's zod schemas. Its own entry point, so zod is only in
 * bundles that ask for it:
 *
 *     import { validateResponses } from '@releases/client/validation';
 *     const client = new ReleasesClient({ validateResponses });
 *
 * Unknown fields are accepted (a newer server may add some); missing or mistyped ones are not.
 */
const schemas: Record<ValidatedOperation, z.ZodTypeAny> = {
  'releases.list': ReleaseListResponseSchema,
  'releases.get': ReleaseResponseSchema,
  'facets.list': FacetsResponseSchema,
  'health.check': z.literal('OK'),
};

export class ResponseValidationError extends ReleasesError {
  override name = 'ResponseValidationError';
}

export const validateResponses: ResponseValidator = (operation, body) => {
  const result = schemas[operation].safeParse(body);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
    throw new ResponseValidationError(
      `The ${operation} response does not match the API contract: ${issues.slice(0, 5).join('; ')}`,
    );
  }
};
