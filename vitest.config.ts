import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real terraform runs take seconds each on 2 cores.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The pinned AWS SDK warns that its releases from 2027 need Node 22; the image runs Node 22, tests run 20.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
