/**
 * What people do during a soak: change the stacks by hand (drift made by editing state, as the e2e does),
 * ask for checks, approve and reject alerts, open a digest's stacks and unlock a stack an interrupted
 * apply blocked; each through a signed Slack request to one of the live replicas, chosen at random.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import type { Run } from '../../src/domain/run/model.js';
import type { Store } from '../../src/ports/store.js';
import { ACTION_IDS, REJECT_MODAL } from '../../src/slack/action-ids.js';
import { POOL_CHANNEL, POOL_SIGNING_SECRET } from '../helpers/pool-world.js';
import { interactionForm, postSigned } from '../helpers/slack-signing.js';
import type { History } from './history.js';
import type { Random } from './prng.js';
import { LEADS, type SoakStack, STACKS, type SoakWorld } from './world.js';

export const ACTION_WEIGHTS = { drift: 2, check: 2, decide: 6, open: 3, unlock: 2 } as const;
export type ActionKind = keyof typeof ACTION_WEIGHTS;

export interface ActionContext {
  world: SoakWorld;
  store: Store;
  rng: Random;
  history: History;
}

/** Run ids named by the buttons of a message (an alert's, or a digest's Open buttons). */
export function buttonRunIds(blocks: unknown): string[] {
  const ids = new Set<string>();
  const named = new Set<string>([
    ACTION_IDS.approve,
    ACTION_IDS.reject,
    ACTION_IDS.viewPlan,
    ACTION_IDS.remediate,
    ACTION_IDS.openStack,
  ]);
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const o = node as Record<string, unknown>;
    if (typeof o.action_id === 'string' && named.has(o.action_id) && typeof o.value === 'string') ids.add(o.value);
    for (const value of Object.values(o)) walk(value);
  };
  walk(typeof blocks === 'string' ? safeJson(blocks) : blocks);
  return [...ids];
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const replica = (ctx: ActionContext) => ctx.rng.pick(ctx.world.live('serve'));

async function makeDrift(ctx: ActionContext): Promise<void> {
  const { world, rng, history } = ctx;
  const stack = rng.pick(STACKS)!;
  const record = await ctx.store.getStack(stack.name);
  if (record?.blockedReason) return;
  const kind = rng.pick(stack.drifts)!;
  const dir = world.pool.stackDir(stack.name);
  const tf = { binary: 'terraform', env: world.pool.baseEnv };
  const n = rng.int(1, 1_000_000);
  try {
    if (kind === 'slow') {
      await execa('terraform', ['state', 'rm', '-lock-timeout=5s', 'terraform_data.slow'], {
        cwd: dir,
        env: world.pool.baseEnv,
        extendEnv: false,
      });
      // After the removal (which fails while it is absent, an apply to come): the next apply that creates
      // it again writes this generation to applies.log, and a stale plan of an older one is refused.
      await writeFile(join(dir, 'generation'), `${stack.name}#${n}\n`);
    } else if (kind === 'user') {
      await editResourceInput(tf, dir, { type: 'terraform_data', name: 'creds' }, (input) => {
        input.user = `user-${n}`;
      });
    } else {
      await editResourceInput(tf, dir, { type: 'terraform_data', name: 'vpc' }, (input) => {
        (input.tags as Record<string, string>).Team = `soak-${n}`;
      });
    }
    history.record({
      kind: 'drift',
      stack: stack.name,
      drift: kind,
      generation: kind === 'slow' ? `${stack.name}#${n}` : undefined,
    });
  } catch (err) {
    // The state was locked by driftgate's terraform (or the resource is gone): nothing changed.
    history.record({ kind: 'drift_refused', stack: stack.name, drift: kind, error: String(err).slice(0, 300) });
  }
}

async function askCheck(ctx: ActionContext): Promise<void> {
  const to = replica(ctx);
  if (!to) return;
  const stacks = STACKS.filter(() => ctx.rng.chance(0.4)).map((s) => s.name);
  if (stacks.length === 0) stacks.push(ctx.rng.pick(STACKS)!.name);
  const user = ctx.rng.pick(LEADS)!;
  const status = await ctx.world.pool.command(to.proc, `check ${stacks.join(' ')}`, user).then(
    (r) => r.status,
    (err: unknown) => String(err),
  );
  ctx.history.record({ kind: 'check', stacks, user, to: to.proc.pid, status });
}

/** Approves (or now and then rejects) a run waiting for people, in its message, as a lead who has not yet. */
async function decide(ctx: ActionContext): Promise<void> {
  const { store, rng, world, history } = ctx;
  const waiting = await store.listRuns({ states: ['drifted', 'pending_approval'] });
  const run = rng.pick(waiting);
  if (!run) return;
  const message = await store.getMessage(run.id);
  const to = replica(ctx);
  if (!message || !to) return;
  const approved = new Set((await store.listApprovals(run.id)).map((a) => a.userId));
  const user = rng.pick(LEADS.filter((l) => !approved.has(l)));
  if (!user) return;
  const where = { channel: message.channel, ts: message.ts };
  if (rng.chance(0.12)) {
    const clicked = await world.pool.click(to.proc, ACTION_IDS.reject, run.id, user, where).then(
      (r) => r.status,
      (err: unknown) => String(err),
    );
    const submitted = await submitReject(to.proc.base, run.id, user).then(
      (r) => r.status,
      (err: unknown) => String(err),
    );
    history.record({ kind: 'reject', runId: run.id, stack: run.stack, user, to: to.proc.pid, clicked, submitted });
    return;
  }
  const status = await world.pool.click(to.proc, ACTION_IDS.approve, run.id, user, where).then(
    (r) => r.status,
    (err: unknown) => String(err),
  );
  history.record({ kind: 'approve', runId: run.id, stack: run.stack, user, to: to.proc.pid, status });
}

let submissions = 0;
function submitReject(base: string, runId: string, user: string): Promise<Response> {
  const form = interactionForm(user, `soak-reject-${++submissions}`, {
    type: 'view_submission',
    view: {
      id: 'V999',
      type: 'modal',
      callback_id: REJECT_MODAL.callbackId,
      private_metadata: runId,
      state: {
        values: {
          [REJECT_MODAL.reasonBlockId]: { [REJECT_MODAL.reasonActionId]: { type: 'plain_text_input', value: 'soak' } },
        },
      },
    },
  });
  return postSigned(`${base}/slack/events`, POOL_SIGNING_SECRET, form);
}

/**
 * A waiting run listed in a digest has no message of its own until someone opens it there; the digest
 * names the run of its check, which later checks may have replaced (Open follows them to the newest).
 */
async function openFromDigest(ctx: ActionContext): Promise<void> {
  const { store, rng, world, history } = ctx;
  const digests = world.pool.emulator
    .messages(POOL_CHANNEL)
    .filter((m) => m.threadTs === undefined && /Drift in \d+ stacks/.test(JSON.stringify(m.blocks)));
  const candidates: { listed: string; digest: (typeof digests)[number]; run: Run }[] = [];
  for (const digest of digests.slice(-5))
    for (const listed of buttonRunIds(digest.blocks)) {
      let run = await store.getRun(listed);
      for (let i = 0; i < 100 && run?.state === 'superseded' && run.supersededBy; i++)
        run = await store.getRun(run.supersededBy);
      if (run && ['drifted', 'pending_approval'].includes(run.state) && !(await store.hasMessage(run.id)))
        candidates.push({ listed, digest, run });
    }
  const chosen = rng.pick(candidates);
  const to = replica(ctx);
  if (!chosen || !to) return;
  const user = rng.pick(LEADS)!;
  const status = await world.pool.click(to.proc, ACTION_IDS.openStack, chosen.listed, user, chosen.digest).then(
    (r) => r.status,
    (err: unknown) => String(err),
  );
  history.record({
    kind: 'open',
    listed: chosen.listed,
    runId: chosen.run.id,
    stack: chosen.run.stack,
    user,
    to: to.proc.pid,
    status,
  });
}

/** A stack blocked by an interrupted apply, once that was told, is unlocked by a lead a while later. */
async function unlock(ctx: ActionContext): Promise<void> {
  const { store, rng, world, history } = ctx;
  const blocked: SoakStack[] = [];
  for (const stack of STACKS) if ((await store.getStack(stack.name))?.blockedReason) blocked.push(stack);
  const stack = rng.pick(blocked);
  const to = replica(ctx);
  if (!stack || !to) return;
  const interrupted = (await store.listAudit({ stack: stack.name, limit: 50 })).find(
    (a) => a.action === 'apply_interrupted',
  );
  if (!interrupted || Date.now() - interrupted.at.getTime() < 5_000) return;
  const user = rng.pick(LEADS)!;
  const status = await world.pool.command(to.proc, `unlock ${stack.name}`, user).then(
    (r) => r.status,
    (err: unknown) => String(err),
  );
  history.record({ kind: 'unlock', stack: stack.name, user, to: to.proc.pid, status });
}

export async function act(kind: ActionKind, ctx: ActionContext): Promise<void> {
  switch (kind) {
    case 'drift':
      return makeDrift(ctx);
    case 'check':
      return askCheck(ctx);
    case 'decide':
      return decide(ctx);
    case 'open':
      return openFromDigest(ctx);
    case 'unlock':
      return unlock(ctx);
  }
}

/** The generations each stack's slow resource was applied at, from its applies.log. */
export async function appliedGenerations(world: SoakWorld): Promise<string[]> {
  const lines: string[] = [];
  for (const stack of STACKS.filter((s) => s.drifts.includes('slow'))) {
    const text = await readFile(join(world.pool.stackDir(stack.name), 'applies.log'), 'utf8').catch(() => '');
    lines.push(...text.split('\n').filter((l) => l && l !== 'setup'));
  }
  return lines;
}
