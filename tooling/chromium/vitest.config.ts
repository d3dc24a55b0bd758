import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The first launch unpacks the lockfile's Chromium (about 200 MB).
  test: { include: ['src/**/*.test.ts'], testTimeout: 60_000 },
});
