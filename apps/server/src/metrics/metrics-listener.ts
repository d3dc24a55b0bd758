import { createServer, type RequestListener, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * The metrics port's only answer: `GET /metrics` in Prometheus' text format. Everything else is a bare 404:
 * this port speaks to Prometheus, not to API clients, so it has no problem documents, CORS or request ids.
 */
export function metricsListener(registry: Registry): RequestListener {
  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Not found: metrics are at GET /metrics.\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('The metrics could not be collected.\n');
      },
    );
  };
}

/**
 * Listens for Prometheus on `METRICS_HOST:METRICS_PORT`, a socket of its own: the public port never serves
 * metrics (SPEC §10). Rejects when the port cannot be bound, so the server does not start without them.
 */
export async function listenForMetrics(registry: Registry, address: { host: string; port: number }): Promise<Server> {
  const server = createServer(metricsListener(registry));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(new Error(`metrics could not listen on ${address.host}:${address.port}`, { cause: error })),
    );
    server.listen(address.port, address.host, resolve);
  });
  return server;
}
