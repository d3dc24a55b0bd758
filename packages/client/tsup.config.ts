import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

/**
 * Dual ESM/CJS with matching type files. The contract is bundled in (only its schema-free `wire` part on
 * the default path), so the published tarball installs alone; zod (3.25+ or 4) is an optional peer used only by
 * the `validation` entry.
 *
 * Splitting puts the code both entries use (the error classes) in one shared chunk per format, so
 * `ResponseValidationError` from `./validation` is a `ReleasesError` of the main entry: one class, not two
 * copies that `instanceof` tells apart. (For CJS this is tsup's own splitting, which esbuild lacks.)
 */
export default defineConfig({
  entry: { index: 'src/index.ts', validation: 'src/validation.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  splitting: true,
  treeshake: true,
  // `zod` itself is left to the plugin below, which keeps it external under another name.
  noExternal: ['@releases/contract', /^zod$/],
  external: ['zod/v3'],
  esbuildPlugins: [
    {
      // The contract's schemas are zod 3 code. `zod/v3` is that API in both majors of the optional peer
      // (zod 3.25+ and zod 4 ship it), so validation behaves the same whichever one the user installed.
      name: 'zod-v3',
      setup(build) {
        build.onResolve({ filter: /^zod$/ }, () => ({ path: 'zod/v3', external: true }));
      },
    },
  ],
  define: { __RELEASES_CLIENT_VERSION__: JSON.stringify(version) },
});
