import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the scripted server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, exactly as sent on the request line. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>`: its own origin. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type ScriptedHandler = (request: RecordedRequest, res: ServerResponse, attempt: number) => void;

/**
 * A real HTTP server on a loopback port whose every answer the test scripts, and which records what it was
 * sent (headers as Node parsed them, so a header sent twice shows as one joined value).
 */
export async function scriptedServer(handler: ScriptedHandler): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      handler(recorded, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers with the API's JSON envelope. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Answers with an RFC 9457 problem of the given kind. */
export function sendProblem(
  res: ServerResponse,
  status: number,
  kind: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/problem+json', 'x-request-id': `req-${status}`, ...headers });
  res.end(JSON.stringify({ type: `http://x/problems/${kind}`, title: kind, status, detail: `scripted ${status}` }));
}

/** A valid (empty) facets envelope: the cheapest successful GET to script. */
export const emptyFacets = {
  success: true,
  data: { vocaloid_banks: [], genres: [], languages: [], total: 0, generated_at: '2026-11-22T08:00:00.000Z' },
};
