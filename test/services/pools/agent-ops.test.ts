import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpRunner } from '../../../src/adapters/agent/terraform-on-workers.js';
import { openPostgresAgentOps } from '../../../src/adapters/store/postgres/agent-ops.js';
import { openPostgresStore } from '../../../src/adapters/store/postgres/open-postgres-store.js';
import type { AgentOpStore } from '../../../src/ports/agent-ops.js';
import type { Store } from '../../../src/ports/store.js';
import {
  type AgentOpsDeps,
  claimOp,
  extendLease,
  opInput,
  putOpOutput,
  reportOpResult,
} from '../../../src/services/pools/agent-ops.js';
import { usePostgres } from '../../helpers/postgres.js';

/**
 * The agent API's jobs on a real Postgres: a lease is the only key to its job, for its token, once, and
 * only until it runs out; every refusal is audited with the token that tried.
 */
const postgres = usePostgres();
let ops: AgentOpStore;
let store: Store;
let deps: AgentOpsDeps;
let url: string;
const prod = { pool: 'prod', tokenId: 'aaaaaaaaaaaaaaaa' };
const otherProd = { pool: 'prod', tokenId: 'bbbbbbbbbbbbbbbb' };
const dev = { pool: 'nonprod', tokenId: 'cccccccccccccccc' };
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const PLAN_OK = {
  ok: true,
  stdout: 'No changes.',
  stderr: '',
  exitCode: 0,
  durationMs: 5,
  truncated: false,
  hasChanges: false,
  initRan: false,
  version: { flavor: 'terraform', version: '1.11.0', path: '/usr/bin/terraform' },
};

beforeAll(async () => {
  url = await postgres.createDatabase();
  store = await openPostgresStore({ url });
  ops = await openPostgresAgentOps({ url });
  deps = { ops, audit: store, logger: silent, now: () => new Date(), leaseMs: 30_000, claimPollMs: 50 };
});
afterAll(async () => {
  await ops?.close();
  await store?.close();
});

const APPLY_OK = { ok: true, stdout: 'Apply complete!', stderr: '', exitCode: 0, durationMs: 5, truncated: false };

const refusals = async () =>
  (await store.listAudit({ limit: 1000 })).filter((a) => a.action === 'agent_request_refused');

describe('agent jobs', () => {
  it('hands a pool’s job only to that pool’s tokens, and takes its result once, from its lease', async () => {
    await ops.enqueue({ id: 'op-1', pool: 'prod', stack: 'prod/app', kind: 'plan', request: {}, maxAttempts: 3 });
    expect(await claimOp(deps, dev, 0)).toBeUndefined();
    const claimed = await claimOp(deps, prod, 0);
    expect(claimed?.op).toMatchObject({ id: 'op-1', kind: 'plan', stack: 'prod/app', attempts: 1 });
    const lease = claimed!.lease;
    const before = (await refusals()).length;

    expect(await reportOpResult(deps, dev, 'op-1', lease, PLAN_OK)).toMatchObject({ ok: false, reason: 'not_yours' });
    expect(await reportOpResult(deps, otherProd, 'op-1', lease, PLAN_OK)).toMatchObject({ reason: 'not_yours' });
    expect(await reportOpResult(deps, prod, 'op-1', 'x'.repeat(43), PLAN_OK)).toMatchObject({ reason: 'lease_over' });
    expect(await reportOpResult(deps, prod, 'op-1', lease, { ok: true, stdout: 1 })).toMatchObject({
      reason: 'invalid',
    });
    expect(await putOpOutput(deps, prod, 'op-1', lease, 'state', Buffer.from('x'))).toMatchObject({
      reason: 'invalid',
    });
    expect(await reportOpResult(deps, prod, 'nope', lease, PLAN_OK)).toMatchObject({ reason: 'no_such_op' });

    const put = await putOpOutput(deps, prod, 'op-1', lease, 'plan', Buffer.from('saved plan'));
    expect(put).toMatchObject({ ok: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await reportOpResult(deps, prod, 'op-1', lease, PLAN_OK)).toEqual({ ok: true });
    // Once: the lease no longer holds a finished job.
    expect(await reportOpResult(deps, prod, 'op-1', lease, PLAN_OK)).toMatchObject({ reason: 'lease_over' });
    expect(await extendLease(deps, prod, 'op-1', lease)).toMatchObject({ reason: 'lease_over' });
    expect((await ops.get('op-1'))?.state).toBe('done');
    expect((await ops.file('op-1', 'out', 'plan'))?.body.toString()).toBe('saved plan');

    const audited = (await refusals()).slice(before);
    expect(audited.map((a) => [a.actor, a.detail?.reason])).toEqual([
      [`pool:nonprod:${dev.tokenId}`, 'not_yours'],
      [`pool:prod:${otherProd.tokenId}`, 'not_yours'],
      [`pool:prod:${prod.tokenId}`, 'lease_over'],
      [`pool:prod:${prod.tokenId}`, 'invalid'],
      [`pool:prod:${prod.tokenId}`, 'invalid'],
      [`pool:prod:${prod.tokenId}`, 'no_such_op'],
      [`pool:prod:${prod.tokenId}`, 'lease_over'],
      [`pool:prod:${prod.tokenId}`, 'lease_over'],
    ]);
  });

  it('takes a job back when its lease runs out: a plan goes to the next worker, a lost apply is never retried', async () => {
    const short = { ...deps, leaseMs: 200 };
    await ops.enqueue({ id: 'op-2', pool: 'prod', stack: 'prod/db', kind: 'plan', request: {}, maxAttempts: 2 });
    const first = await claimOp(short, prod, 0);
    await new Promise((r) => setTimeout(r, 400));
    // The control plane's sweep of expired leases (once a second in serve).
    await ops.expireLeases();
    const second = await claimOp(short, otherProd, 0);
    expect(second?.op).toMatchObject({ id: 'op-2', attempts: 2 });
    // The first worker's lease is over: its late result is refused, the second's taken.
    expect(await reportOpResult(short, prod, 'op-2', first!.lease, PLAN_OK)).toMatchObject({ reason: 'not_yours' });
    expect(await reportOpResult(short, otherProd, 'op-2', second!.lease, PLAN_OK)).toEqual({ ok: true });

    const apply = { commitSha: undefined, planSha256: 'a'.repeat(64) };
    await ops.enqueue({
      id: 'op-3',
      pool: 'prod',
      stack: 'prod/db',
      kind: 'apply',
      request: { planSha256: apply.planSha256 },
      maxAttempts: 1,
      files: [{ name: 'plan', body: Buffer.from('reviewed') }],
    });
    const applying = await claimOp(short, prod, 0);
    const input = await opInput(short, prod, 'op-3', applying!.lease, 'plan');
    expect(input).toMatchObject({ ok: true });
    expect(await opInput(short, dev, 'op-3', applying!.lease, 'plan')).toMatchObject({ reason: 'not_yours' });
    await new Promise((r) => setTimeout(r, 400));
    await ops.expireLeases();
    expect((await ops.get('op-3'))?.state).toBe('lost');
    expect(await claimOp(short, prod, 0)).toBeUndefined();
    // Nobody reads a lost or finished job any more: pruned, files and all; a job still waiting stays.
    await ops.enqueue({ id: 'op-5', pool: 'prod', stack: 'prod/db', kind: 'plan', request: {}, maxAttempts: 1 });
    expect(await ops.prune(0)).toBeGreaterThanOrEqual(2);
    expect(await ops.get('op-3')).toBeUndefined();
    expect(await ops.file('op-3', 'in', 'plan')).toBeUndefined();
    expect((await ops.get('op-5'))?.state).toBe('queued');
    await ops.remove('op-5');
  });

  // A claim waits on the queue, not on its next look a minute later: without the wake this test times out.
  it('wakes a waiting claim as soon as another replica queues a job on its pool', async () => {
    const replica = await openPostgresAgentOps({ url });
    try {
      const waiting = claimOp({ ...deps, claimPollMs: 60_000 }, dev, 60_000);
      // Its LISTEN is set up by the first wait.
      await new Promise((r) => setTimeout(r, 500));
      await replica.enqueue({
        id: 'op-4',
        pool: 'nonprod',
        stack: 'dev/app',
        kind: 'plan',
        request: {},
        maxAttempts: 1,
      });
      expect((await waiting)?.op.id).toBe('op-4');
    } finally {
      await replica.close();
    }
  }, 15_000);

  // The control plane's waiter reads its op when the result lands, wherever the worker posted it: with a
  // poll of a minute and no wake, this test times out.
  it("wakes the op's waiter as soon as another replica stores its result, or its lease runs out", async () => {
    const replica = await openPostgresAgentOps({ url });
    let n = 0;
    const runner = createOpRunner({
      ops,
      logger: silent,
      newId: () => `wake-${++n}`,
      queueWaitMs: 60_000,
      pollMs: 60_000,
    });
    try {
      const planned = runner('plan', { pool: 'nonprod', stack: 'dev/app' }, {}, { runMs: 60_000, attempts: 1 });
      const claimed = await claimOp({ ...deps, ops: replica }, dev, 10_000);
      expect(claimed?.op.id).toBe('wake-1');
      expect(await reportOpResult({ ...deps, ops: replica }, dev, 'wake-1', claimed!.lease, PLAN_OK)).toEqual({
        ok: true,
      });
      const outcome = await planned;
      expect(outcome.result).toMatchObject({ ok: true, hasChanges: false });
      await outcome.done();

      const applying = runner('apply', { pool: 'nonprod', stack: 'dev/app' }, {}, { runMs: 60_000, attempts: 1 });
      const applyClaim = await claimOp({ ...deps, ops: replica, leaseMs: 200 }, dev, 10_000);
      expect(applyClaim?.op.id).toBe('wake-2');
      await new Promise((r) => setTimeout(r, 400));
      await replica.expireLeases();
      await expect(applying).rejects.toThrow(/stopped answering \(its lease ran out\)/);
    } finally {
      await replica.close();
    }
  }, 20_000);

  it('waits out a store that stops answering, and takes the result stored once it is back', async () => {
    let n = 0;
    const runner = createOpRunner({
      ops,
      logger: silent,
      newId: () => `outage-${++n}`,
      queueWaitMs: 60_000,
      pollMs: 100,
    });
    const applying = runner('apply', { pool: 'nonprod', stack: 'dev/app' }, {}, { runMs: 60_000, attempts: 1 });
    const claimed = await claimOp(deps, dev, 10_000);
    expect(claimed?.op.id).toBe('outage-1');
    let settled = false;
    void applying.then(
      () => (settled = true),
      () => (settled = true),
    );
    // Postgres restarts while the worker applies: the waiter reads nothing for a while, and goes on waiting.
    await postgres.outage!.begin();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(settled).toBe(false);
    await postgres.outage!.end();
    const worker = await openPostgresAgentOps({ url });
    try {
      expect(await reportOpResult({ ...deps, ops: worker }, dev, 'outage-1', claimed!.lease, APPLY_OK)).toEqual({
        ok: true,
      });
      const outcome = await applying;
      expect(outcome.result).toMatchObject({ ok: true });
      await outcome.done();
    } finally {
      await worker.close();
    }
  }, 60_000);
});
