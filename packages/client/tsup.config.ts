import { defineConfig } from 'tsup';

/**
 * Dual ESM/CJS with matching type files. The contract is bundled in (only its schema-free `wire` part on
 * the default path), so the published tarball installs alone; zod is an optional peer used only by the
 * `validation` entry.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', validation: 'src/validation.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  splitting: false,
  treeshake: true,
  noExternal: ['@releases/contract'],
  external: ['zod'],
});
