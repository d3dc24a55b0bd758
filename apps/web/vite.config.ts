import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Where `pnpm dev` finds the API: the server started beside Vite (`PORT`, 3000 by default). */
const apiTarget = process.env.RELEASES_API_URL ?? `http://localhost:${process.env.PORT ?? '3000'}`;

/**
 * Everything the server answers itself goes to it; the rest is this app. The browser sees one origin (Vite's),
 * so its requests carry `Sec-Fetch-Site: same-origin`, which is what the server's CSRF check accepts for
 * cookie-authenticated writes (the `Origin` header names Vite's port, not PUBLIC_URL, and is not consulted when
 * `Sec-Fetch-Site` is present). The session cookie is set for the host, whatever the port.
 */
const serverPaths = ['/api', '/docs', '/problems', '/livez', '/readyz'];

export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(serverPaths.map((path) => [path, { target: apiTarget, changeOrigin: false }])),
  },
  build: {
    target: 'es2022',
    // Source maps stay out of the served folder: the budget test reads what a browser downloads.
    sourcemap: false,
    assetsDir: 'assets',
    // Every browser this app supports has modulepreload: no polyfill in the entry chunk.
    modulePreload: { polyfill: false },
  },
});
