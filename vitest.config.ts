import { defineConfig } from 'vitest/config';

/**
 * Files that start driftgate as separate processes and kill them (kill -9, Postgres restarts, worker
 * pools), or plan with the AWS provider: they run after the rest, two at a time, so that none of them
 * shares the machine with the paired files' terraform runs (their deadlines wait on leases, restarts and
 * the provider starting). The short soak runs last, on its own: it checks promises under faults it times.
 */
const APART = [
  'test/e2e/{crash-restart,leader-killed,change-events,s3-remediation,real-drift-alerts}.test.ts',
  'test/e2e/{worker,agent}-*.test.ts',
  'test/adapters/terraform/aws-mirror.test.ts',
];
const SOAK = ['test/soak/*.test.ts'];

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
          exclude: [...APART, ...SOAK],
          maxWorkers: 2,
          // Each fork keeps its modules from file to file: importing them afresh for each of 250 files cost
          // about 200 s of CI. src keeps no module-level state but a set of live process groups, and the few
          // tests that fake timers or swap undici's dispatcher put them back after themselves.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'apart', include: APART, maxWorkers: 2, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'soak', include: SOAK, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
