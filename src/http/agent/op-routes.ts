import { z } from 'zod';
import {
  type AgentOpsDeps,
  claimOp,
  extendLease,
  opInput,
  putOpOutput,
  type Refusal,
  reportOpResult,
} from '../../services/pools/agent-ops.js';
import type { WorkerRegistry } from '../../ports/worker-registry.js';
import { readBody, readBytes } from '../read-body.js';
import type { AgentReply, AgentRoute } from './listener.js';
import { LEASE_HEADER } from '../../domain/agent/protocol.js';

/** Larger than any plan file or plan JSON a stack should make; the AWS provider's schema is ~14 MB. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
const MAX_RESULT_BYTES = 20 * 1024 * 1024;

const ClaimBody = z.strictObject({ waitSeconds: z.number().min(0).max(60).default(20) });
const Heartbeat = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  host: z.string().max(255),
  pid: z.number().int().nonnegative(),
  concurrency: z.number().int().min(1).max(1_000),
  running: z.number().int().min(0).max(1_000),
  startedAt: z.number().int().nonnegative(),
  leaving: z.boolean().optional(),
});

const OP_ID = '([A-Za-z0-9_.-]{1,128})';
const FILE_NAME = '([a-z_]{1,32})';

function refused(r: Refusal | { ok: false; reason: 'no_such_file' }): AgentReply {
  const status = r.reason === 'invalid' ? 422 : r.reason === 'no_such_op' || r.reason === 'no_such_file' ? 404 : 409;
  const error =
    r.reason === 'lease_over'
      ? 'this lease no longer holds the job (it ran out, moved to another worker, or the job ended)'
      : r.reason === 'not_yours'
        ? "this job is not this token's"
        : r.reason === 'invalid'
          ? `not this job's answer: ${'detail' in r ? r.detail : ''}`
          : r.reason === 'no_such_file'
            ? 'this job has no such file'
            : 'no such job';
  return { status, body: { error, reason: r.reason } };
}

async function json(req: Parameters<AgentRoute['handle']>[0]['req']): Promise<unknown> {
  const body = await readBody(req, MAX_RESULT_BYTES);
  if (!body.ok) throw new Error('too_large');
  return body.text ? JSON.parse(body.text) : {};
}

/** A JSON body parsed with `schema`, or the 400 that says what was wrong. */
async function parsedBody<S extends z.ZodType>(
  req: Parameters<AgentRoute['handle']>[0]['req'],
  schema: S,
): Promise<{ ok: true; data: z.infer<S> } | { ok: false; reply: AgentReply }> {
  let body: unknown;
  try {
    body = await json(req);
  } catch {
    return { ok: false, reply: { status: 400, body: { error: 'body is not JSON, or larger than 20 MB' } } };
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    return { ok: false, reply: { status: 400, body: { error: parsed.error.issues.map((i) => i.message) } } };
  return { ok: true, data: parsed.data };
}

const leaseOf = (req: Parameters<AgentRoute['handle']>[0]['req']) => {
  const value = req.headers[LEASE_HEADER];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The job routes of the agent API: claim the pool's next job (a long poll), extend its lease, read what
 * it brings, upload what it made, report its result once. Each names the job; each is refused unless the
 * caller's token holds that job's live lease.
 */
export function agentOpRoutes(
  deps: AgentOpsDeps & { registry: Pick<WorkerRegistry, 'beat' | 'leave'> },
  shutdown: AbortSignal,
): AgentRoute[] {
  return [
    {
      method: 'POST',
      path: /^\/heartbeat$/,
      async handle({ agent, req }) {
        const parsed = await parsedBody(req, Heartbeat);
        if (!parsed.ok) return parsed.reply;
        const { leaving, startedAt, ...worker } = parsed.data;
        // The pool is the token's: a worker cannot show up, or count, in another pool.
        if (leaving) await deps.registry.leave(`${agent.tokenId}:${worker.id}`);
        else
          await deps.registry.beat({
            ...worker,
            id: `${agent.tokenId}:${worker.id}`,
            pool: agent.pool,
            startedAt: new Date(startedAt),
          });
        return { status: 200, body: { ok: true } };
      },
    },
    {
      method: 'POST',
      path: /^\/jobs\/claim$/,
      async handle({ agent, req }) {
        const parsed = await parsedBody(req, ClaimBody);
        if (!parsed.ok) return parsed.reply;
        const claimed = await claimOp(deps, agent, parsed.data.waitSeconds * 1000, shutdown);
        if (!claimed) return { status: 204, body: {} };
        return {
          status: 200,
          body: { job: claimed.op, lease: claimed.lease, leaseSeconds: claimed.leaseMs / 1000 },
        };
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/jobs/${OP_ID}/lease$`),
      async handle({ agent, req, params }) {
        const extended = await extendLease(deps, agent, params[0]!, leaseOf(req));
        return extended.ok ? { status: 200, body: { leaseSeconds: extended.leaseMs / 1000 } } : refused(extended);
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/jobs/${OP_ID}/files/${FILE_NAME}$`),
      async handle({ agent, req, params }) {
        const file = await opInput(deps, agent, params[0]!, leaseOf(req), params[1]!);
        if (!file.ok) return refused(file);
        return { status: 200, body: {}, raw: file.body, headers: { 'x-driftgate-sha256': file.sha256 } };
      },
    },
    {
      method: 'PUT',
      path: new RegExp(`^/jobs/${OP_ID}/files/${FILE_NAME}$`),
      async handle({ agent, req, params }) {
        const body = await readBytes(req, MAX_FILE_BYTES);
        if (!body.ok)
          return {
            status: 413,
            body: { error: `file larger than ${MAX_FILE_BYTES} bytes` },
            headers: { connection: 'close' },
          };
        const put = await putOpOutput(deps, agent, params[0]!, leaseOf(req), params[1]!, body.body);
        return put.ok ? { status: 200, body: { sha256: put.sha256 } } : refused(put);
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/jobs/${OP_ID}/result$`),
      async handle({ agent, req, params }) {
        let body: unknown;
        try {
          body = await json(req);
        } catch {
          return { status: 400, body: { error: 'body is not JSON, or larger than 20 MB' } };
        }
        const reported = await reportOpResult(deps, agent, params[0]!, leaseOf(req), body);
        return reported.ok ? { status: 200, body: { ok: true } } : refused(reported);
      },
    },
  ];
}
