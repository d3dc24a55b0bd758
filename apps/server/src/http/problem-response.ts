import { headerNames, problemContentType, problemKinds, problemTypeUri, type Problem } from '@releases/contract';
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { StorageConflictError, StorageRejectedTextError, StorageUnavailableError } from '../db/errors.js';
import { HttpProblem, serviceUnavailable, validationProblem } from '../kernel/http-problem.js';
import { KeyManagerUnavailableError } from '../keys/key-manager.js';
import { requestInstance } from './request-id.js';
import { closeUnreadBody } from './unread-body.js';

interface BodyParserError {
  type: string;
  status?: number;
  limit?: number;
  charset?: string;
  encoding?: string;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string';
}

/** Maps errors we did not raise ourselves (body parsing, storage outages) to problems. */
function toHttpProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof StorageUnavailableError) {
    return serviceUnavailable('The database is not answering. Try again shortly.', error);
  }
  if (error instanceof StorageConflictError) {
    return new HttpProblem(
      'conflict',
      error.reason === 'missing-reference'
        ? 'What this request refers to was removed meanwhile. Read it again, then retry.'
        : 'What this request adds was added meanwhile by another request. Read it again, then retry.',
      { cause: error },
    );
  }
  if (error instanceof StorageRejectedTextError) {
    return new HttpProblem(
      'invalid-request',
      'The request holds text that cannot be stored: a NUL or another character that is not Unicode text.',
      { cause: error },
    );
  }
  if (error instanceof KeyManagerUnavailableError) {
    // Fail closed (SPEC §4): when the key manager cannot tell, the key is neither accepted nor called bad.
    return serviceUnavailable('The key manager is not answering. Try again shortly.', error);
  }
  if (error instanceof ZodError) return validationProblem(error, 'pointer');
  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.too.large':
        return new HttpProblem(
          'payload-too-large',
          `The request body is larger than ${error.limit ?? 'the limit of'} bytes.`,
          {
            cause: error,
          },
        );
      case 'entity.parse.failed':
        return new HttpProblem('invalid-request', 'The request body is not valid JSON.', { cause: error });
      case 'charset.unsupported':
        return new HttpProblem(
          'unsupported-media-type',
          `The charset ${JSON.stringify(error.charset)} is not supported; send UTF-8.`,
          {
            cause: error,
          },
        );
      case 'encoding.unsupported':
        return new HttpProblem(
          'unsupported-media-type',
          `The content encoding ${JSON.stringify(error.encoding)} is not supported.`,
          {
            cause: error,
          },
        );
      case 'request.aborted':
      case 'request.size.invalid':
        return new HttpProblem('invalid-request', 'The request body ended early or did not match its Content-Length.', {
          cause: error,
        });
    }
  }
  // A body sent with Content-Encoding gzip/deflate/br that does not decompress: zlib's error, passed on by
  // body-parser. The client's mistake, not ours.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new HttpProblem(
      'invalid-request',
      'The request body could not be decompressed: it does not match its Content-Encoding.',
      { cause: error },
    );
  }
  // The router refuses a path segment that is not valid percent-encoding (`/api/v1/release/%zz`).
  if (error instanceof URIError || (error instanceof Error && /^Failed to decode param/.test(error.message))) {
    return new HttpProblem('invalid-request', 'The URL is not valid percent-encoding.', { cause: error });
  }
  return new HttpProblem('internal-error', 'The server failed to handle this request.', { cause: error });
}

interface ProblemWriterContext {
  publicUrl: string;
  requestId: string | undefined;
}

/** The problem document of `problem`, as every error answer carries it. */
export function problemBody(problem: HttpProblem, context: ProblemWriterContext): Problem {
  const body: Problem = {
    type: problemTypeUri(context.publicUrl, problem.kind),
    title: problemKinds[problem.kind].title,
    status: problem.status,
    detail: problem.detail,
  };
  if (context.requestId) body.instance = requestInstance(context.requestId);
  if (problem.errors) body.errors = problem.errors;
  return body;
}

/**
 * Writes a problem document as the answer to a request: the one place an error body is made (the terminal
 * middleware below, and the public reads' path ahead of Express, both call it). Bugs (5xx other than a
 * dependency's outage) are logged with their cause; nothing internal reaches the body. Headers already set on `res` (security headers, CORS, the request
 * id, the quota) stay.
 */
export function writeProblem(
  res: ServerResponse,
  error: unknown,
  context: { publicUrl: string; logger: Logger },
): void {
  const problem = toHttpProblem(error);
  // A dependency's outage is logged by the code that calls it, once per outage (`kernel/outage-log.ts`), not
  // once per request it fails; any other 5xx is a bug of ours, logged with its cause.
  const outage = error instanceof StorageUnavailableError || error instanceof KeyManagerUnavailableError;
  if (problem.status >= 500 && !outage) {
    context.logger.error({ err: problem.cause ?? problem, kind: problem.kind }, 'request failed');
  }
  if (res.req !== undefined) closeUnreadBody(res.req, res);
  if (res.headersSent) {
    // Too late for a problem body: end the connection so the client sees a failure, not a truncated 200.
    res.destroy();
    return;
  }
  const requestId = res.getHeader(headerNames.requestId);
  const body = JSON.stringify(
    problemBody(problem, {
      publicUrl: context.publicUrl,
      requestId: typeof requestId === 'string' ? requestId : undefined,
    }),
  );
  res.statusCode = problem.status;
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  // Error bodies are never cached: they describe one request.
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-type', `${problemContentType}; charset=utf-8`);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** The terminal error middleware: every error of every route ends here and leaves as problem+json. */
export function problemHandler(context: { publicUrl: string; logger: Logger }): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => writeProblem(res, error, context);
}
