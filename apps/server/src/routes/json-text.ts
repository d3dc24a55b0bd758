import type { ServerResponse } from 'node:http';
import type { Express, Response } from 'express';
import type { Clock } from '../clock.js';
import type { HeaderList } from '../http/security-headers.js';

/**
 * JSON that is already text. Release documents are serialized once, when they are written, so a page is
 * assembled by concatenation instead of being parsed and stringified again on every request (the profile's
 * largest avoidable cost). ts-rest hands a route's body to `res.json()`; `sendPreserializedJson` teaches this
 * app's `res.json()` to write such a body as is. The route's declared type is the contract's, which the text
 * satisfies by construction; the route tests parse every response with the contract's schemas.
 */
class PreserializedJson {
  constructor(readonly text: string) {}
}

/** A body that is JSON text already, typed as the route's response. */
export function preserialized<T>(json: string): T {
  return new PreserializedJson(json) as unknown as T;
}

/** A JSON answer as text, and the headers that belong to it (the next page's `Link`). */
export interface JsonReply {
  body: string;
  headers: HeaderList;
}

/** Sets a reply's headers on an Express response; returns its body. */
export function withHeaders(res: ServerResponse, reply: JsonReply): string {
  for (const [name, value] of reply.headers) res.setHeader(name, value);
  return reply.body;
}

/** `before` + the current time in ISO 8601 + `after`: a body whose `generated_at` is now. */
export function generatedNow(before: string, after: string, clock: Clock): string {
  return before + new Date(clock.now()).toISOString() + after;
}

export function sendPreserializedJson(app: Express): void {
  const json = app.response.json;
  app.response.json = function (this: Response, body: unknown) {
    if (!(body instanceof PreserializedJson)) return json.call(this, body);
    if (!this.get('content-type')) this.setHeader('content-type', 'application/json; charset=utf-8');
    // Written as the string it is, in one piece with the headers (`res.send` would copy it into a Buffer first).
    this.setHeader('content-length', Buffer.byteLength(body.text));
    this.end(body.text);
    return this;
  };
}
