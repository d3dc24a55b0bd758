import { z } from 'zod';
import { limits } from './limits.js';
import { problemKindNames, type ProblemKind } from './problem-kinds.js';

/**
 * Bounds on what the server writes into a problem. `detail` and `errors` echo what a request got wrong, and a
 * request carries at most 16 KB of headers (1,000 query parameters) and 16 KB of body, so one problem can name
 * a few thousand fields: these sit above that, they do not cut anything the server says.
 */
const maxErrors = 4_096;
const maxDetailLength = 128 * 1024;
const maxErrorDetailLength = 1_024;
const maxLocationLength = 16 * 1024;

/** The problem kinds, as an enum: the last segment of a problem's `type`. */
export const ProblemKindSchema = z
  .enum(problemKindNames as [ProblemKind, ...ProblemKind[]])
  .describe('A problem kind: the last path segment of a problem `type`, whose page explains it.');

export const ProblemErrorSchema = z
  .object({
    parameter: z.string().max(maxLocationLength).optional().describe('The query or path parameter the error concerns.'),
    pointer: z.string().max(maxLocationLength).optional().describe('JSON Pointer (RFC 6901) into the request body.'),
    header: z.string().max(maxLocationLength).optional().describe('The request header the error concerns.'),
    detail: z.string().max(maxErrorDetailLength),
  })
  .passthrough();
export type ProblemError = z.infer<typeof ProblemErrorSchema>;

/** RFC 9457 problem details, as every 4xx/5xx of this service returns them. */
export const ProblemSchema = z
  .object({
    type: z
      .string()
      .url()
      .max(2_048)
      .describe('`{PUBLIC_URL}/problems/<kind>`, the kind one of `ProblemKind`; the URL serves a page about it.'),
    title: z.string().max(128).describe('Fixed per kind.'),
    status: z.number().int().min(400).max(599).describe('The HTTP status code.'),
    detail: z
      .string()
      .max(maxDetailLength)
      .describe('What went wrong with this request, in words a developer can act on.'),
    instance: z
      .string()
      // `urn:request:` and the longest request id the server echoes.
      .max(limits.maxRequestIdLength + 12)
      .optional()
      .describe(
        '`urn:uuid:<request id>` when the id is a UUID, else `urn:request:<request id>`; the same id is in `x-request-id`.',
      ),
    errors: z
      .array(ProblemErrorSchema)
      .max(maxErrors)
      .optional()
      .describe('Validation problems, one per parameter or body field.'),
  })
  .passthrough();
export type Problem = z.infer<typeof ProblemSchema>;
