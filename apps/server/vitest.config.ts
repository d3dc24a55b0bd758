import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Tests that run `dist/` (the server process, the CLI) never see a build older than the sources.
    globalSetup: ['test/support/fresh-build.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own process: native SQLite handles and servers never leak between files.
    pool: 'forks',
  },
});
