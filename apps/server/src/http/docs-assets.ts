import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { RequestHandler } from 'express';
import vary from 'vary';
import { serverRoot } from '../config.js';
import { codingFor, type Coding } from './compression.js';

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

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Each file compressed once, in the background, at the best settings (the bundle is 1.7 MB; Brotli makes it
 * about a fifth), off the event loop, when it is first asked for; until a form is ready the file goes out as
 * it is. Nothing is compressed per request.
 */
class CompressedForms {
  private readonly forms = new Map<string, Partial<Record<Coding, Buffer>>>();

  /** The file compressed in `coding`, or undefined while it is not ready (asking starts the work). */
  get(name: string, folder: string, coding: Coding): Buffer | undefined {
    let entry = this.forms.get(name);
    if (entry === undefined) {
      const forms: Partial<Record<Coding, Buffer>> = {};
      this.forms.set(name, (entry = forms));
      void readFile(path.join(folder, name))
        .then(async (content) => {
          forms.br = await brotli(content, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } });
          forms.gzip = await gzip(content, { level: zlib.constants.Z_BEST_COMPRESSION });
        })
        // A file that cannot be read or compressed is sent as it is (the request reports a missing file).
        .catch(() => undefined);
    }
    return entry[coding];
  }
}

/** Mounted at `/docs/assets`. */
export function docsAssets(): RequestHandler {
  const forms = new CompressedForms();
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const name = req.path.slice(1);
    const folder = assets.get(name);
    if (folder === undefined) return next();
    vary(res, 'Accept-Encoding');
    const coding = codingFor(req.headers['accept-encoding']);
    const compressed = coding === undefined ? undefined : forms.get(name, folder, coding);
    if (coding !== undefined && compressed !== undefined) {
      res.type(path.extname(name));
      res.setHeader('content-encoding', coding);
      res.setHeader('cache-control', 'public, max-age=3600');
      res.setHeader('content-length', compressed.length);
      res.end(req.method === 'HEAD' ? undefined : compressed);
      return;
    }
    // `root`, because the folder's own path may hold a dot folder (pnpm's node_modules/.pnpm), which send refuses.
    res.sendFile(name, { root: folder, maxAge: '1h' }, (error?: Error) => {
      if (error) next(error);
    });
  };
}
