import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';
import type { DomainEvent } from '../../../src/domain/events.js';
import { applySavedPlan } from '../../../src/services/apply/apply-saved-plan.js';
import { checkStack } from '../../../src/services/check/check-stack.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { SENSITIVE_DATABASE } from '../../helpers/stack-files.js';

const NETWORK = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.0.0.0/16", tags = { Name = "main", Team = "core" } }
}
resource "terraform_data" "subnet" {
  input = { cidr = "10.0.1.0/24" }
}
`;

const SECRET = 'hunter2-very-secret-password';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function recordEvents(a: TestApp): DomainEvent[] {
  const events: DomainEvent[] = [];
  a.context.deps.bus.onAny((e) => void events.push(e));
  return events;
}

describe('check and apply with real terraform', () => {
  it('detects drift once, applies the reviewed plan exactly once, verifies, and resolves the drift', async () => {
    app = await makeTestApp({ stacks: { network: NETWORK } });
    const { deps, store } = app.context;
    const stack = app.context.stack('network')!;
    await app.applyWithTerraform('network');
    const events = recordEvents(app);

    const clean = await checkStack(deps, stack, { trigger: 'manual' });
    expect(clean.status).toBe('no_changes');

    await editResourceInput(
      { binary: 'terraform', env: app.env },
      stack.dir,
      { type: 'terraform_data', name: 'vpc' },
      (input) => {
        (input.tags as Record<string, string>).Team = 'someone-else';
      },
    );
    const first = await checkStack(deps, stack, { trigger: 'schedule' });
    expect(first).toMatchObject({ status: 'drifted', isNew: true });
    if (first.status !== 'drifted') throw new Error('unreachable');
    expect(first.analysis.counts).toMatchObject({ update: 1, create: 0, delete: 0, replace: 0 });
    expect(first.run.planSha256).toMatch(/^[0-9a-f]{64}$/);

    const second = await checkStack(deps, stack, { trigger: 'schedule' });
    expect(second).toMatchObject({ status: 'drifted', isNew: false });
    if (second.status !== 'drifted') throw new Error('unreachable');
    expect(second.analysis.fingerprint).toBe(first.analysis.fingerprint);
    expect(await store.getRun(first.run.id)).toMatchObject({ state: 'superseded', supersededBy: second.run.id });
    expect(events.map((e) => e.type)).toEqual(['no_changes', 'drift_detected', 'plan_refreshed']);
    expect(events[2]).toMatchObject({
      type: 'plan_refreshed',
      previousRunId: first.run.id,
      run: { id: second.run.id },
    });
    expect((await store.getStack('network'))?.openDrift?.runId).toBe(second.run.id);

    // The superseded plan can no longer be applied.
    expect(await applySavedPlan(deps, stack, first.run.id, 'U1')).toMatchObject({
      status: 'refused',
      code: 'not_applyable',
    });

    // Five approvers racing: one apply.
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => applySavedPlan(deps, stack, second.run.id, `U${i}`)),
    );
    const applied = results.filter((r) => r.status === 'applied');
    expect(applied).toHaveLength(1);
    expect(results.filter((r) => r.status === 'refused')).toHaveLength(4);
    expect((await store.listAudit({ runId: second.run.id })).filter((a) => a.action === 'apply_started')).toHaveLength(
      1,
    );
    const outcome = applied[0]!;
    if (outcome.status !== 'applied') throw new Error('unreachable');
    expect(outcome.run.state).toBe('applied');
    expect(outcome.verification).toMatchObject({ status: 'no_changes', resolved: true });
    expect(events.map((e) => e.type)).toEqual(['no_changes', 'drift_detected', 'plan_refreshed', 'drift_resolved']);
    expect(await store.getStack('network')).toMatchObject({ status: 'in_sync' });
    expect((await store.getStack('network'))?.openDrift).toBeUndefined();
  });

  it('refuses a plan older than maxPlanAge and a tampered saved plan', async () => {
    app = await makeTestApp({ stacks: { network: NETWORK }, config: { defaults: { maxPlanAge: '1h' } } });
    const { deps, store } = app.context;
    const stack = app.context.stack('network')!;
    const planned = await checkStack(deps, stack, { trigger: 'manual' });
    if (planned.status !== 'drifted') throw new Error(`expected drift, got ${planned.status}`);

    app.now.value = new Date(app.now.value.getTime() + 2 * 3_600_000);
    expect(await applySavedPlan(deps, stack, planned.run.id, 'U1')).toMatchObject({
      status: 'refused',
      code: 'expired',
    });
    expect((await store.getRun(planned.run.id))?.state).toBe('expired');

    const again = await checkStack(deps, stack, { trigger: 'manual' });
    if (again.status !== 'drifted') throw new Error(`expected drift, got ${again.status}`);
    const planRef = (await store.listArtifacts(again.run.id)).find((a) => a.kind === 'plan')!;
    const file = join(app.context.config.dataDir, 'artifacts', planRef.key);
    const bytes = await readFile(file);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    await writeFile(file, bytes);
    const tampered = await applySavedPlan(deps, stack, again.run.id, 'U1');
    expect(tampered).toMatchObject({ status: 'apply_failed' });
    if (tampered.status !== 'apply_failed') throw new Error('unreachable');
    expect(tampered.error).toMatch(/sha256/);
    // Nothing was applied: the verification plan still wants to create everything.
    expect(tampered.verification).toMatchObject({ status: 'drifted' });
  });

  it('errors one stack with its stderr tail while the others go on', async () => {
    app = await makeTestApp({
      stacks: { good: NETWORK, broken: 'resource "terraform_data" "x" {\n  input = var.nope\n}\n', missing: undefined },
    });
    const events = recordEvents(app);
    const outcomes = await Promise.all(
      ['good', 'broken', 'missing'].map((n) =>
        checkStack(app!.context.deps, app!.context.stack(n)!, { trigger: 'manual' }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['drifted', 'errored', 'errored']);
    const broken = outcomes[1]!;
    if (broken.status !== 'errored') throw new Error('unreachable');
    expect(broken.stderrTail + broken.error).toMatch(/Reference to undeclared input variable/);
    expect(outcomes[2]).toMatchObject({ status: 'errored', error: expect.stringMatching(/missing/) });
    expect(
      events
        .filter((e) => e.type === 'plan_failed')
        .map((e) => e.stack)
        .sort(),
    ).toEqual(['broken', 'missing']);
    expect((await app.context.store.getStack('broken'))?.status).toBe('errored');
  });

  it('keeps a sensitive variable out of every artifact but the raw plan, the database and the logs', async () => {
    app = await makeTestApp({
      stacks: { db: SENSITIVE_DATABASE },
      stackSettings: { db: { vars: { password: '${DB_PASSWORD}' } } },
      env: { DB_PASSWORD: SECRET },
    });
    const { deps, store } = app.context;
    const outcome = await checkStack(deps, app.context.stack('db')!, { trigger: 'manual' });
    if (outcome.status !== 'drifted') throw new Error(`expected changes, got ${outcome.status}`);
    expect(JSON.stringify(outcome.analysis)).not.toContain(SECRET);
    const refs = await store.listArtifacts(outcome.run.id);
    for (const ref of refs) {
      const body = (await deps.artifacts.get(ref.key, ref.sha256)).toString('latin1');
      if (ref.kind === 'plan' || ref.kind === 'plan_json') continue; // terraform's own formats: private, encrypted at rest
      expect(body, ref.kind).not.toContain(SECRET);
    }
    const dataDir = app.context.config.dataDir;
    for (const name of await readdir(dataDir)) {
      if (!name.startsWith('driftgate.db')) continue;
      expect((await readFile(join(dataDir, name))).toString('latin1'), name).not.toContain(SECRET);
    }
    deps.logger.info({ leaked: `x${SECRET}y` }, `log line with ${SECRET}`);
    expect(app.logs.join('')).toContain('log line with');
    expect(app.logs.join('')).not.toContain(SECRET);
  });
});
