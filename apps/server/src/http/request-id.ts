import { randomUUID } from 'node:crypto';
import { headerNames, requestIdPattern } from '@releases/contract';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Every response carries `x-request-id`. An incoming id of the accepted shape is echoed as sent, so a trace
 * can be followed through every hop; anything else is replaced by a UUID, never reflected.
 */
export const requestId: RequestHandler = (req, res, next) => {
  res.setHeader(headerNames.requestId, requestIdOf(req));
  next();
};

/** The id a request is answered and logged under. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers[headerNames.requestId];
  // `requestIdPattern` (the contract): what SPEC §3.4 accepts from a client or a load balancer (32-hex ids,
  // UUIDs, dotted or colon-separated trace ids), each character safe in a header, a log line and a URN.
  return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : randomUUID();
}

/** A problem's `instance`: `urn:uuid:<id>` when the id is a UUID, else `urn:request:<id>` (SPEC §3.4). */
export function requestInstance(id: string): string {
  return uuidShape.test(id) ? `urn:uuid:${id}` : `urn:request:${id}`;
}
