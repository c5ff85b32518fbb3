import { createHash, randomBytes } from 'node:crypto';
import { OP_OUTPUT_FILES, OpResults } from '../../domain/agent/op-messages.js';
import type { AgentOp, AgentOpKind, AgentOpStore } from '../../ports/agent-ops.js';
import { AGENT_OP_KINDS } from '../../ports/agent-ops.js';
import type { RunStore } from '../../ports/store.js';
import type { AgentIdentity } from './pool-tokens.js';
import type { Logger } from '../../ports/logger.js';

export interface AgentOpsDeps {
  ops: AgentOpStore;
  audit: Pick<RunStore, 'appendAudit'>;
  logger: Logger;
  now: () => Date;
  /** How long a lease lasts without an extension; workers extend it three times as often. */
  leaseMs: number;
  /** How often a claim's long poll looks for work again. */
  claimPollMs?: number;
}

/** An op handed to a worker: what it needs, and the lease that is the only key to its results. */
export interface Claimed {
  op: Pick<AgentOp, 'id' | 'kind' | 'stack' | 'request' | 'attempts'>;
  lease: string;
  leaseMs: number;
}

export type Refusal = { ok: false; reason: 'no_such_op' | 'not_yours' | 'lease_over' | 'invalid'; detail?: string };

const leaseHash = (lease: string) => createHash('sha256').update(lease).digest('hex');

/**
 * Waits up to `waitMs` for an op of the agent's pool, the pool its token is of (never one it names):
 * a nonprod token cannot be handed a prod op, whatever it asks.
 */
export async function claimOp(
  deps: AgentOpsDeps,
  agent: AgentIdentity,
  waitMs: number,
  signal?: AbortSignal,
): Promise<Claimed | undefined> {
  const until = Date.now() + waitMs;
  for (;;) {
    const lease = randomBytes(32).toString('base64url');
    // Listening before it looks: an op queued while the claim's query runs still wakes it.
    const looked = new AbortController();
    const queued = deps.ops.queued(
      agent.pool,
      Math.min(deps.claimPollMs ?? 500, Math.max(0, until - Date.now())),
      signal ? AbortSignal.any([signal, looked.signal]) : looked.signal,
    );
    const op = await deps.ops.claim(agent.pool, AGENT_OP_KINDS, {
      hash: leaseHash(lease),
      tokenId: agent.tokenId,
      ms: deps.leaseMs,
    });
    if (op || Date.now() >= until || signal?.aborted) looked.abort();
    if (op) {
      deps.logger.info(
        { opId: op.id, kind: op.kind, stack: op.stack, pool: agent.pool, tokenId: agent.tokenId, attempt: op.attempts },
        'agent op leased',
      );
      return {
        op: { id: op.id, kind: op.kind, stack: op.stack, request: op.request, attempts: op.attempts },
        lease,
        leaseMs: deps.leaseMs,
      };
    }
    if (looked.signal.aborted) return undefined;
    // Woken by an op queued on the pool; else a look every half second (a lease that ran out, a retry).
    await queued;
  }
}

/** Checks a request against the op's lease; a refusal is logged and audited (who tried what). */
async function held(
  deps: AgentOpsDeps,
  agent: AgentIdentity,
  opId: string,
  lease: string | undefined,
  action: string,
): Promise<{ ok: true; op: AgentOp } | Refusal> {
  const checked = lease
    ? await deps.ops.checkLease(opId, agent.tokenId, leaseHash(lease))
    : ({ ok: false, reason: 'lease_over' } as const);
  if (checked.ok) return checked;
  await refuse(deps, agent, opId, action, checked.reason);
  return checked;
}

async function refuse(
  deps: AgentOpsDeps,
  agent: AgentIdentity,
  opId: string,
  action: string,
  reason: Refusal['reason'],
  detail?: string,
): Promise<Refusal> {
  deps.logger.warn({ opId, pool: agent.pool, tokenId: agent.tokenId, action, reason, detail }, 'agent request refused');
  await deps.audit.appendAudit({
    at: deps.now(),
    actor: `pool:${agent.pool}:${agent.tokenId}`,
    action: 'agent_request_refused',
    detail: { opId: opId.slice(0, 100), request: action, reason, ...(detail ? { detail: detail.slice(0, 500) } : {}) },
  });
  return { ok: false, reason, ...(detail ? { detail } : {}) };
}

export async function extendLease(
  deps: AgentOpsDeps,
  agent: AgentIdentity,
  opId: string,
  lease: string | undefined,
): Promise<{ ok: true; leaseMs: number } | Refusal> {
  if (lease && (await deps.ops.extend(opId, agent.tokenId, leaseHash(lease), deps.leaseMs)))
    return { ok: true, leaseMs: deps.leaseMs };
  const checked = await held(deps, agent, opId, lease, 'extend');
  return checked.ok ? { ok: false, reason: 'lease_over' } : checked;
}

/** A file the op brings its worker (the saved plan of an apply), with the sha256 recorded when it was queued. */
export async function opInput(
  deps: AgentOpsDeps,
  agent: AgentIdentity,
  opId: string,
  lease: string | undefined,
  name: string,
): Promise<{ ok: true; body: Buffer; sha256: string } | Refusal | { ok: false; reason: 'no_such_file' }> {
  const checked = await held(deps, agent, opId, lease, `read ${name}`);
  if (!checked.ok) return checked;
  const file = await deps.ops.file(opId, 'in', name);
  return file ? { ok: true, ...file } : { ok: false, reason: 'no_such_file' };
}

/** A file the op's worker uploads; its sha256 is the control plane's own, computed here. */
export async function putOpOutput(
  deps: AgentOpsDeps,
  agent: AgentIdentity,
  opId: string,
  lease: string | undefined,
  name: string,
  body: Buffer,
): Promise<{ ok: true; sha256: string } | Refusal> {
  const checked = await held(deps, agent, opId, lease, `upload ${name}`);
  if (!checked.ok) return checked;
  const allowed: readonly string[] = OP_OUTPUT_FILES[checked.op.kind];
  if (!allowed.includes(name))
    return refuse(deps, agent, opId, `upload ${name}`, 'invalid', `a ${checked.op.kind} op has no file ${name}`);
  const sha256 = createHash('sha256').update(body).digest('hex');
  if (!(await deps.ops.putFile(opId, agent.tokenId, leaseHash(lease!), { name, body, sha256 })))
    return refuse(deps, agent, opId, `upload ${name}`, 'lease_over');
  return { ok: true, sha256 };
}

/** The op's result, once, from the lease that holds it; parsed as its kind's result or refused. */
export async function reportOpResult(
  deps: AgentOpsDeps,
  agent: AgentIdentity,
  opId: string,
  lease: string | undefined,
  body: unknown,
): Promise<{ ok: true } | Refusal> {
  const checked = await held(deps, agent, opId, lease, 'result');
  if (!checked.ok) return checked;
  const parsed = OpResults[checked.op.kind as AgentOpKind].safeParse(body);
  if (!parsed.success)
    return refuse(deps, agent, opId, 'result', 'invalid', parsed.error.issues.map((i) => i.message).join('; '));
  if (!(await deps.ops.complete(opId, agent.tokenId, leaseHash(lease!), parsed.data)))
    return refuse(deps, agent, opId, 'result', 'lease_over');
  deps.logger.info({ opId, kind: checked.op.kind, stack: checked.op.stack, ok: parsed.data.ok }, 'agent op done');
  return { ok: true };
}
