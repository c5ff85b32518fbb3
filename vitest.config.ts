import { defineConfig } from 'vitest/config';

/**
 * Files that start driftgate as separate processes and kill them (kill -9, Postgres restarts, worker
 * pools), or plan with the AWS provider: their deadlines hold on a machine they have to themselves, so
 * they run one at a time after the rest, which run two at a time (most of their time is spent waiting on
 * terraform, sockets and timers, not on both cores).
 */
const ALONE = [
  'test/slack/flows/{crash-restart,leader-killed,change-events,s3-remediation,real-drift-alerts}.test.ts',
  'test/slack/flows/{worker,agent}-*.test.ts',
  'test/adapters/queue/worker-killed.test.ts',
  'test/adapters/terraform/aws-mirror.test.ts',
  'test/soak/*.test.ts',
];

export default defineConfig({
  test: {
    // Real terraform runs take seconds each on 2 cores.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The pinned AWS SDK warns that its releases from 2027 need Node 22; the image runs Node 22, tests run 20.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        extends: true,
        test: {
          name: 'paired',
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          maxWorkers: 2,
          // Each fork keeps its modules from file to file: importing them afresh for each of 250 files cost
          // about 200 s of CI. src keeps no module-level state but a set of live process groups, and the few
          // tests that fake timers or swap undici's dispatcher put them back after themselves.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
