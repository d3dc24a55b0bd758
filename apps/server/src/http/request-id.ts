import { randomUUID } from 'node:crypto';
import { headerNames } from '@releases/contract';
import type { RequestHandler } from 'express';

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Every response carries `x-request-id`. An incoming id is echoed when it is a UUID (problem `instance` is
 * `urn:uuid:<id>`, so it must be one); anything else is replaced, never reflected.
 */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.headers[headerNames.requestId];
  const id = typeof incoming === 'string' && uuidShape.test(incoming) ? incoming.toLowerCase() : randomUUID();
  res.setHeader(headerNames.requestId, id);
  next();
};
