import { z } from 'zod';
import { problemKindNames } from './problem-kinds.js';

export const ProblemErrorSchema = z
  .object({
    parameter: z.string().optional().describe('The query or path parameter the error concerns.'),
    pointer: z.string().optional().describe('JSON Pointer (RFC 6901) into the request body.'),
    header: z.string().optional().describe('The request header the error concerns.'),
    detail: z.string(),
  })
  .passthrough();
export type ProblemError = z.infer<typeof ProblemErrorSchema>;

/** RFC 9457 problem details, as every 4xx/5xx of this service returns them. */
export const ProblemSchema = z
  .object({
    type: z
      .string()
      .url()
      .describe(
        `\`{PUBLIC_URL}/problems/<kind>\`, kind one of: ${problemKindNames.map((k) => `\`${k}\``).join(', ')}.`,
      ),
    title: z.string().describe('Fixed per kind.'),
    status: z.number().int().min(400).max(599).describe('The HTTP status code.'),
    detail: z.string().describe('What went wrong with this request, in words a developer can act on.'),
    instance: z.string().optional().describe('`urn:uuid:<request id>`; the same id is in `x-request-id`.'),
    errors: z.array(ProblemErrorSchema).optional().describe('Validation problems, one per parameter or body field.'),
  })
  .passthrough();
export type Problem = z.infer<typeof ProblemSchema>;
