import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';
import { precompress } from './precompress.js';

/** Where `pnpm dev` finds the API: the server started beside Vite (`PORT`, 3000 by default). */
const apiTarget = process.env.RELEASES_API_URL ?? `http://localhost:${process.env.PORT ?? '3000'}`;
/** The origin the server calls its own (`PUBLIC_URL`, which defaults to the same address). */
const apiOrigin = new URL(process.env.PUBLIC_URL ?? apiTarget).origin;
const webPort = Number(process.env.WEB_PORT ?? 5173);

/**
 * Everything the server answers itself goes to it; the rest is this app. The browser sees one origin (Vite's),
 * so its requests carry `Sec-Fetch-Site: same-origin`, which is what the server's CSRF check accepts for
 * cookie-authenticated writes; the session cookie is set for the host, whatever the port. Signing up and in
 * also compare `Origin` with PUBLIC_URL, so the proxy presents requests from Vite's own pages as coming from
 * the server's origin. A request from any other origin keeps its `Origin` (and its `Sec-Fetch-Site`) and is
 * refused as it would be in production.
 */
const serverPaths = ['/api', '/docs', '/problems', '/livez', '/readyz'];
const ownOrigins = new Set([`http://localhost:${webPort}`, `http://127.0.0.1:${webPort}`]);

const proxy: Record<string, ProxyOptions> = Object.fromEntries(
  serverPaths.map((path) => [
    path,
    {
      target: apiTarget,
      configure: (server) => {
        server.on('proxyReq', (proxyRequest, request) => {
          const origin = request.headers.origin;
          if (origin && ownOrigins.has(origin)) proxyRequest.setHeader('origin', apiOrigin);
        });
      },
    },
  ]),
);

export default defineConfig(({ command, mode }) => {
  // `vite build` makes the build users get, whatever NODE_ENV the shell has: Vite reads NODE_ENV before the
  // mode, so `NODE_ENV=development pnpm start` built React's development bundle (116 KB gzipped instead of
  // 61) with jsxDEV calls in it. Vite reads `process.env.NODE_ENV` again after loading this file, so setting
  // it here decides. A development build stays possible on purpose:
  // `NODE_ENV=development vite build --mode development`.
  if (command === 'build' && mode === 'production') process.env.NODE_ENV = 'production';
  return {
    plugins: [react(), precompress()],
    server: { port: webPort, strictPort: true, proxy },
    build: {
      target: 'es2022',
      // Source maps stay out of the served folder: the budget test reads what a browser downloads.
      sourcemap: false,
      assetsDir: 'assets',
      // Every browser this app supports has modulepreload: no polyfill in the entry chunk.
      modulePreload: { polyfill: false },
    },
  };
});
