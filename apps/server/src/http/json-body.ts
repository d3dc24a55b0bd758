import express, { type RequestHandler } from 'express';
import { HttpProblem } from '../kernel/http-problem.js';

const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Request bodies: only on methods that take one, only JSON (415 otherwise), at most `maxBytes` (413), and
 * checked before parsing so nothing else reads them. Bodyless requests skip all of it.
 */
export function jsonBody(maxBytes: number): RequestHandler {
  const parse = express.json({ limit: maxBytes, type: ['application/json', 'application/*+json'] });
  return (req, res, next) => {
    if (!bodyMethods.has(req.method)) return next();
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody) return next();
    if (!req.is(['application/json', 'application/*+json'])) {
      const sent = req.headers['content-type'] ?? 'none';
      return next(new HttpProblem('unsupported-media-type', `Request bodies must be application/json; got ${sent}.`));
    }
    parse(req, res, next);
  };
}
