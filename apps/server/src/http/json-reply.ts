import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { Clock } from '../kernel/clock.js';
import type { HeaderList } from './security-headers.js';

/**
 * A JSON answer as text, and the headers that belong to it (the next page's `Link`).
 *
 * Release documents are serialized once, when they are written, so a page is assembled by concatenation
 * instead of being parsed and stringified again on every request (the profile's largest avoidable cost). The
 * fast path (`fast-path.ts`) sends such text as it is; Express, which sends what a route returns through
 * `res.json()`, is given the same answer decoded by the route's own response schema (`decodedBody`).
 */
export interface JsonReply {
  body: string;
  headers: HeaderList;
}

/** Sets a reply's headers on a response. */
export function setReplyHeaders(res: ServerResponse, reply: JsonReply): void {
  for (const [name, value] of reply.headers) res.setHeader(name, value);
}

/**
 * A reply's body as its route's contract types it, decoded by the contract's own schema: what a ts-rest route
 * returns on the Express path (HEAD, other spellings of a path, a renewed session cookie), where the few
 * requests that take it can afford the parse. A body that does not match its schema fails here, loudly, as a
 * 500, rather than reaching a client.
 */
export function decodedBody<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, reply: JsonReply): T {
  return schema.parse(JSON.parse(reply.body));
}

/** `before` + the current time in ISO 8601 + `after`: a body whose `generated_at` is now. */
export function generatedNow(before: string, after: string, clock: Clock): string {
  return before + new Date(clock.now()).toISOString() + after;
}
