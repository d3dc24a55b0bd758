import { problemKinds, type ProblemError, type ProblemKind } from '@releases/contract';
import type { ZodError, ZodIssue } from 'zod';

export interface ProblemOptions {
  errors?: ProblemError[];
  /** Response headers that belong to this problem (`WWW-Authenticate`, `Allow`, `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type of the server. Routes and middleware throw it; the problem writer
 * (`http/problem-response.ts`) is the only code that writes an error body.
 */
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';
  readonly status: number;
  readonly errors: ProblemError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    options: ProblemOptions = {},
  ) {
    // No stack of its own: a problem is an answer, not a bug, and capturing one was most of the cost of a 429
    // under a flood. What went wrong inside, when anything did, is its `cause`, whose stack is kept and logged.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.status = problemKinds[kind].status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

/** Seconds a client should wait before retrying after a 503. */
const serviceUnavailableRetryAfterSeconds = 5;

export function serviceUnavailable(detail: string, cause?: unknown): HttpProblem {
  return new HttpProblem('service-unavailable', detail, {
    headers: { 'retry-after': String(serviceUnavailableRetryAfterSeconds) },
    cause,
  });
}

/** Describes a zod issue for a person: `limit: must be an integer from 1 to 100`. */
function issueDetail(issue: ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.received === 'undefined') return 'is required';
  if (issue.code === 'invalid_type' && issue.expected === 'string' && issue.received === 'array') {
    return 'may be given only once';
  }
  return issue.message;
}

type IssueLocation = 'parameter' | 'pointer' | 'header';

/** Turns zod issues into the `errors` member: one entry per parameter, body field or header. */
export function issuesToErrors(error: ZodError, location: IssueLocation): ProblemError[] {
  const errors: ProblemError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const where = location === 'pointer' ? `/${escapePointer(key)}` : key;
        errors.push({ [location]: where, detail: `is not a known ${location === 'pointer' ? 'field' : location}` });
      }
      continue;
    }
    const where =
      location === 'pointer' ? '/' + issue.path.map((p) => escapePointer(String(p))).join('/') : issue.path.join('.');
    errors.push({ [location]: where, detail: issueDetail(issue) });
  }
  return errors;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A one-line summary of validation errors for `detail`. */
function summarizeErrors(errors: ProblemError[]): string {
  const parts = errors.map((e) => {
    const where = e.parameter ?? e.pointer ?? e.header;
    // A detail may be sentences of its own, ending in a full stop: the summary must not add another.
    const detail = e.detail.replace(/\.$/, '');
    return where ? `${where} ${detail}` : detail;
  });
  return parts.length === 1 ? `${parts[0]}.` : `${parts.length} problems: ${parts.join('; ')}.`;
}

export function validationProblem(error: ZodError, location: IssueLocation): HttpProblem {
  const errors = issuesToErrors(error, location);
  return new HttpProblem('invalid-request', summarizeErrors(errors), { errors });
}

/** A 400 about one body field that the server judged beyond its schema, worded like the schema's own. */
export function fieldProblem(pointer: string, detail: string): HttpProblem {
  const errors: ProblemError[] = [{ pointer, detail }];
  return new HttpProblem('invalid-request', summarizeErrors(errors), { errors });
}
