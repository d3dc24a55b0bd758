import type { Express, Response } from 'express';

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

export function preserialized<T>(json: string): T {
  return new PreserializedJson(json) as unknown as T;
}

export function sendPreserializedJson(app: Express): void {
  const json = app.response.json;
  app.response.json = function (this: Response, body: unknown) {
    if (!(body instanceof PreserializedJson)) return json.call(this, body);
    if (!this.get('content-type')) this.setHeader('content-type', 'application/json; charset=utf-8');
    return this.send(body.text);
  };
}
