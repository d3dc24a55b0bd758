import type { z } from 'zod';

/**
 * How a parameter travels, for the OpenAPI document, when the schema that validates it cannot say so: the
 * list parameters are read by one transform per parameter (see `release.ts`), which a generator sees as
 * "anything". `schema` is the value's wire shape.
 */
export interface ParameterDoc {
  schema: z.ZodTypeAny;
  example?: unknown;
}
