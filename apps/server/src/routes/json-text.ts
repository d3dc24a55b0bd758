import type { IncomingMessage } from 'node:http';
import type { Express, Response } from 'express';
import type { Clock } from '../clock.js';
import { requestContext, type ReplayableBody } from '../http/request-context.js';

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

function preserialized<T>(json: string): T {
  return new PreserializedJson(json) as unknown as T;
}

/**
 * A JSON body as text, which may be given again to the next anonymous request for the same URL while the
 * catalogue stays the same (`http/public-read-cache.ts`). `generated_at` goes between `before` and `after`
 * (an empty `after`: the body has no time in it).
 */
export function replayable<T>(req: IncomingMessage, body: ReplayableBody, clock: Clock): T {
  requestContext(req).replayableBody = body;
  return preserialized<T>(
    body.after === '' ? body.before : body.before + new Date(clock.now()).toISOString() + body.after,
  );
}

export function sendPreserializedJson(app: Express): void {
  const json = app.response.json;
  app.response.json = function (this: Response, body: unknown) {
    if (!(body instanceof PreserializedJson)) return json.call(this, body);
    if (!this.get('content-type')) this.setHeader('content-type', 'application/json; charset=utf-8');
    return this.send(body.text);
  };
}
