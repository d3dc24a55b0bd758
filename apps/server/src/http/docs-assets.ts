import { createRequire } from 'node:module';
import path from 'node:path';
import type { RequestHandler } from 'express';
import { serverRoot } from '../config.js';

const require = createRequire(import.meta.url);
/** Swagger UI's files, located without loading its 1 MB bundle into the server. */
const swaggerUiFolder = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/**
 * The files the reference page at /docs loads, and nothing else: the swagger-ui-dist folder also holds its
 * package.json, sample pages, an OAuth redirect page and source maps, none of which are ours to publish.
 * Anything not listed falls through to the 404 problem.
 */
const assets = new Map<string, string>([
  ['swagger-ui.css', swaggerUiFolder],
  ['swagger-ui-bundle.js', swaggerUiFolder],
  ['init.js', path.join(serverRoot, 'public', 'docs')],
]);

/** Mounted at `/docs/assets`. */
export function docsAssets(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const name = req.path.slice(1);
    const folder = assets.get(name);
    if (folder === undefined) return next();
    // `root`, because the folder's own path may hold a dot folder (pnpm's node_modules/.pnpm), which send refuses.
    res.sendFile(name, { root: folder, maxAge: '1h' }, (error?: Error) => {
      if (error) next(error);
    });
  };
}
