import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AGENT_OP_KINDS, type AgentOp, type AgentOpStore, type LeaseCheck } from '../../../ports/agent-ops.js';
import { openMigratedPool, type PostgresConnection } from './connect.js';
import { changes, firstRow, guarded, type Queryable, rows, withTransaction } from './postgres-context.js';
import pg from 'pg';

const PgClient = pg.Client;

/** The database's clock in epoch milliseconds: every lease is measured on it. */
const DB_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

const OpRow = z.object({
  id: z.string(),
  pool: z.string(),
  stack: z.string(),
  kind: z.enum(AGENT_OP_KINDS),
  // jsonb comes back as its text (the store's row types): parsed here.
  request: z.string().transform((t): unknown => JSON.parse(t)),
  state: z.enum(['queued', 'leased', 'done', 'lost', 'cancelled']),
  attempts: z.coerce.number(),
  max_attempts: z.coerce.number(),
  result: z
    .string()
    .nullable()
    .transform((t): unknown => (t === null ? undefined : JSON.parse(t))),
  lease_token_id: z.string().nullable(),
});

function op(row: unknown): AgentOp {
  const r = OpRow.parse(row);
  return {
    id: r.id,
    pool: r.pool,
    stack: r.stack,
    kind: r.kind,
    request: r.request,
    state: r.state,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    ...(r.result !== undefined ? { result: r.result } : {}),
    ...(r.lease_token_id ? { leaseTokenId: r.lease_token_id } : {}),
  };
}

const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');

const OP_COLUMNS = 'id, pool, stack, kind, request, state, attempts, max_attempts, result, lease_token_id';

/** The channel an enqueue notifies with its pool, so every process's waiting claims of that pool wake. */
const CHANNEL = 'driftgate_agent_ops';
/** The channel a finished op (a result, a lease run out) notifies with its id, so its waiter wakes. */
const SETTLED = 'driftgate_agent_ops_settled';

/** Resolves at `wake`, after `ms`, or at `signal`, whichever comes first; `waiters` holds it meanwhile. */
function waitIn(waiters: Map<string, Set<() => void>>, key: string, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const set = waiters.get(key) ?? new Set();
    waiters.set(key, set);
    const done = () => {
      clearTimeout(timer);
      set.delete(done);
      if (!set.size) waiters.delete(key);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    set.add(done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export function agentOpsOn(pool: pg.Pool, close: () => Promise<void>, listen?: () => Promise<pg.Client>): AgentOpStore {
  // A lost connection is a StoreUnavailableError, as in the rest of the store: the op runner waits it out.
  const db: Queryable = guarded(pool);
  const wake = new Map<string, Set<() => void>>();
  const settledWake = new Map<string, Set<() => void>>();
  const notify = (waiters: Map<string, Set<() => void>>, key: string) => {
    for (const resolve of waiters.get(key) ?? []) resolve();
  };
  // Other processes' enqueues, by LISTEN on a connection of its own; lost, it is opened again at the next
  // wait, and until then claims look every half second as they would anyway.
  let listener: Promise<pg.Client | undefined> | undefined;
  let listeningNow = false;
  const listening = () => {
    if (!listen) return;
    listener ??= listen()
      .then(async (client) => {
        const drop = () => {
          listener = undefined;
          listeningNow = false;
          void client.end().catch(() => undefined);
        };
        client.on('error', drop);
        client.on('end', drop);
        client.on('notification', (n) => n.payload && notify(n.channel === SETTLED ? settledWake : wake, n.payload));
        await client.query(`LISTEN ${CHANNEL}; LISTEN ${SETTLED}`);
        listeningNow = true;
        return client;
      })
      .catch(() => {
        listener = undefined;
        return undefined;
      });
  };
  const ctx = { db };
  // Held: leased to this token with this lease, and not run out by the database's clock.
  const held = `id = $1 AND state = 'leased' AND lease_token_id = $2 AND lease_hash = $3 AND lease_expires_at > ${DB_NOW_MS}`;
  const store: AgentOpStore = {
    async enqueue(o) {
      await withTransaction(pool, async (client) => {
        await client.query(
          `INSERT INTO agent_ops (id, pool, stack, kind, request, state, max_attempts, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'queued', $6, ${DB_NOW_MS}, ${DB_NOW_MS})`,
          [o.id, o.pool, o.stack, o.kind, JSON.stringify(o.request), o.maxAttempts],
        );
        for (const f of o.files ?? [])
          await client.query(
            `INSERT INTO agent_op_files (op_id, direction, name, body, sha256) VALUES ($1, 'in', $2, $3, $4)`,
            [o.id, f.name, f.body, sha256(f.body)],
          );
        await client.query('SELECT pg_notify($1, $2)', [CHANNEL, o.pool]);
      });
      notify(wake, o.pool);
    },
    queued(poolName, ms, signal) {
      listening();
      return waitIn(wake, poolName, ms, signal);
    },
    async settled(id, ms, signal) {
      listening();
      // A result stored before LISTEN took hold sends a notification nobody hears: until it holds, the
      // waiter looks again as soon as it does (or after `ms`), and from then on a result wakes it.
      if (!listeningNow && listener) {
        const over = new AbortController();
        signal?.addEventListener('abort', () => over.abort(), { once: true });
        await Promise.race([listener, waitIn(settledWake, id, ms, over.signal)]);
        over.abort();
        return;
      }
      return waitIn(settledWake, id, ms, signal);
    },
    async claim(poolName, kinds, lease) {
      const row = await firstRow(
        ctx,
        `UPDATE agent_ops SET state = 'leased', attempts = attempts + 1, lease_hash = $3, lease_token_id = $4,
           lease_expires_at = ${DB_NOW_MS} + $5, updated_at = ${DB_NOW_MS}
         WHERE id = (SELECT id FROM agent_ops WHERE pool = $1 AND state = 'queued' AND kind = ANY($2)
                     ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING ${OP_COLUMNS}`,
        [poolName, kinds, lease.hash, lease.tokenId, lease.ms],
      );
      return row ? op(row) : undefined;
    },
    async checkLease(id, tokenId, hash): Promise<LeaseCheck> {
      const row = await firstRow(ctx, `SELECT ${OP_COLUMNS}, (${held}) AS held FROM agent_ops WHERE id = $1`, [
        id,
        tokenId,
        hash,
      ]);
      if (!row) return { ok: false, reason: 'no_such_op' };
      const found = op(row);
      if (found.leaseTokenId !== tokenId) return { ok: false, reason: 'not_yours' };
      if (!(row as { held: boolean }).held) return { ok: false, reason: 'lease_over' };
      return { ok: true, op: found };
    },
    async extend(id, tokenId, hash, ms) {
      return (
        (await changes(ctx, `UPDATE agent_ops SET lease_expires_at = ${DB_NOW_MS} + $4 WHERE ${held}`, [
          id,
          tokenId,
          hash,
          ms,
        ])) === 1
      );
    },
    async putFile(id, tokenId, hash, file) {
      return withTransaction(pool, async (client) => {
        const locked = await client.query(`SELECT id FROM agent_ops WHERE ${held} FOR UPDATE`, [id, tokenId, hash]);
        if (locked.rowCount !== 1) return false;
        await client.query(
          `INSERT INTO agent_op_files (op_id, direction, name, body, sha256) VALUES ($1, 'out', $2, $3, $4)
           ON CONFLICT (op_id, direction, name) DO UPDATE SET body = excluded.body, sha256 = excluded.sha256`,
          [id, file.name, file.body, file.sha256],
        );
        return true;
      });
    },
    async complete(id, tokenId, hash, result) {
      const completed = await withTransaction(pool, async (client) => {
        const done = await client.query(
          `UPDATE agent_ops SET state = 'done', result = $4, lease_expires_at = NULL, updated_at = ${DB_NOW_MS} WHERE ${held}`,
          [id, tokenId, hash, JSON.stringify(result)],
        );
        if (done.rowCount === 1) await client.query('SELECT pg_notify($1, $2)', [SETTLED, id]);
        return done.rowCount === 1;
      });
      if (completed) notify(settledWake, id);
      return completed;
    },
    async get(id) {
      const row = await firstRow(ctx, `SELECT ${OP_COLUMNS} FROM agent_ops WHERE id = $1`, [id]);
      return row ? op(row) : undefined;
    },
    async file(id, direction, name) {
      const row = (await firstRow(
        ctx,
        'SELECT body, sha256 FROM agent_op_files WHERE op_id = $1 AND direction = $2 AND name = $3',
        [id, direction, name],
      )) as { body: Buffer; sha256: string } | undefined;
      return row ? { body: row.body, sha256: row.sha256 } : undefined;
    },
    async expireLeases() {
      const moved = await withTransaction(pool, async (client) => {
        const result = await client.query<{ id: string; pool: string; state: AgentOp['state'] }>(
          `UPDATE agent_ops SET state = CASE WHEN attempts < max_attempts THEN 'queued' ELSE 'lost' END,
             lease_hash = NULL, lease_expires_at = NULL, updated_at = ${DB_NOW_MS}
           WHERE state = 'leased' AND lease_expires_at <= ${DB_NOW_MS}
           RETURNING id, pool, state`,
        );
        // Queued again, its pool's claims wake; lost, its waiter does.
        for (const m of result.rows)
          await client.query('SELECT pg_notify($1, $2)', m.state === 'lost' ? [SETTLED, m.id] : [CHANNEL, m.pool]);
        return result.rows;
      });
      for (const m of moved) notify(m.state === 'lost' ? settledWake : wake, m.state === 'lost' ? m.id : m.pool);
      return moved.map(({ id, state }) => ({ id, state }));
    },
    async cancel(id) {
      await changes(
        ctx,
        `UPDATE agent_ops SET state = 'cancelled', updated_at = ${DB_NOW_MS} WHERE id = $1 AND state IN ('queued', 'leased')`,
        [id],
      );
    },
    async remove(id) {
      await changes(ctx, 'DELETE FROM agent_ops WHERE id = $1', [id]);
    },
    async prune(olderThanMs) {
      return changes(
        ctx,
        `DELETE FROM agent_ops WHERE updated_at < ${DB_NOW_MS} - $1 AND state IN ('done', 'lost', 'cancelled')`,
        [olderThanMs],
      );
    },
    async depth(pools) {
      const found = (await rows(
        ctx,
        `SELECT pool, count(*) FILTER (WHERE state = 'queued') AS waiting, count(*) FILTER (WHERE state = 'leased') AS active,
           (${DB_NOW_MS} - min(created_at) FILTER (WHERE state = 'queued')) / 1000 AS oldest
         FROM agent_ops WHERE pool = ANY($1) GROUP BY pool`,
        [pools],
      )) as { pool: string; waiting: string | number; active: string | number; oldest: string | number | null }[];
      const byPool = new Map(found.map((r) => [r.pool, r]));
      return pools.map((p) => {
        const r = byPool.get(p);
        return {
          pool: p,
          waiting: Number(r?.waiting ?? 0),
          active: Number(r?.active ?? 0),
          ...(r?.oldest != null ? { oldestWaitingSeconds: Math.max(0, Number(r.oldest)) } : {}),
        };
      });
    },
    async close() {
      const client = await listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
      for (const waiters of wake.values()) for (const resolve of [...waiters]) resolve();
      await close();
    },
  };
  return store;
}

/** The agent ops on the config's Postgres store; a pool of its own, sized for the waiters' polls. */
export async function openPostgresAgentOps(options: PostgresConnection): Promise<AgentOpStore> {
  const { pool, end } = await openMigratedPool('url' in options ? { ...options, poolSize: 4 } : options);
  const listen =
    'url' in options
      ? async () => {
          const client = new PgClient({ connectionString: options.url, application_name: 'driftgate-agent-listen' });
          // Until the waiter's own listener is on (after connect), a connection that ends is not a crash.
          client.on('error', () => undefined);
          await client.connect();
          return client;
        }
      : undefined;
  return agentOpsOn(pool, end, listen);
}
