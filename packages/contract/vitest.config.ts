import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // The property tests run a hundred generated cases each (about 1.5 s here alone); CI runs every package's
    // tests at once on two cores, where vitest's default 5 s has run out.
    testTimeout: 30_000,
  },
});
