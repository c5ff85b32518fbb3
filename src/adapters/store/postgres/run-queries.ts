import { runPatchValues } from '../shared/write-values.js';
import type { Run } from '../../../domain/run/model.js';
import { isTerminal, type RunState } from '../../../domain/run/state.js';
import type { RunPatch, RunQuery, RunStore } from '../../../ports/store.js';
import { toRun } from '../shared/rows.js';
import { transitionSources } from '../shared/transition-check.js';
import { ensureStack, firstRow, type PgContext, rows } from './postgres-context.js';

type RunQueries = Pick<RunStore, 'createRun' | 'getRun' | 'listRuns' | 'transition'>;

export function runQueries(ctx: PgContext): RunQueries {
  return {
    createRun: (input) =>
      ctx.transaction(async (tx) => {
        await ensureStack(tx, input.stack);
        const now = tx.nowMs();
        const row = await firstRow(
          tx,
          `INSERT INTO runs (id, stack, state, trigger, created_at, updated_at, commit_sha, owner_host, owner_pid, owner_start)
           VALUES ($1, $2, 'planning', $3, $4, $4, $5, $6, $7, $8) RETURNING *`,
          [tx.newId(), input.stack, input.trigger, now, input.commitSha ?? null, ...ownerValues(tx)],
        );
        return toRun(row);
      }),

    async getRun(id) {
      const row = await firstRow(ctx, 'SELECT * FROM runs WHERE id = $1', [id]);
      return row === undefined ? undefined : toRun(row);
    },

    async listRuns(query: RunQuery = {}) {
      const where: string[] = [];
      const values: unknown[] = [];
      if (query.stack !== undefined) where.push(`stack = $${values.push(query.stack)}`);
      if (query.states !== undefined) {
        if (query.states.length === 0) return [];
        where.push(`state = ANY($${values.push(query.states)}::text[])`);
      }
      const limit = query.limit !== undefined ? `LIMIT $${values.push(query.limit)}` : '';
      const sql = `SELECT * FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at DESC, seq DESC ${limit}`;
      return (await rows(ctx, sql, values)).map(toRun);
    },

    transition: async (id, from, to, patch = {}) => compareAndSet(ctx, id, transitionSources(id, from, to), to, patch),
  };
}

function ownerValues(ctx: PgContext): [string, number, string] {
  return [ctx.owner.host, ctx.owner.pid, ctx.owner.start];
}

/**
 * The whole compare-and-set is one UPDATE: of two callers racing from the same state, the second waits
 * for the first's row lock, re-checks `state` on the row the first wrote, and matches nothing.
 */
async function compareAndSet(
  ctx: PgContext,
  id: string,
  from: readonly RunState[],
  to: RunState,
  patch: RunPatch,
): Promise<Run | undefined> {
  const now = ctx.nowMs();
  // Whoever starts an apply works on the run from here on; recovery asks whether that process is gone.
  const owner = to === 'applying' ? ownerValues(ctx) : [null, null, null];
  const row = await firstRow(
    ctx,
    `UPDATE runs SET
       state = $1, updated_at = $2, finished_at = COALESCE($3, finished_at),
       kind = COALESCE($4, kind), fingerprint = COALESCE($5, fingerprint), counts = COALESCE($6::jsonb, counts),
       plan_sha256 = COALESCE($7, plan_sha256), error = COALESCE($8, error),
       superseded_by = COALESCE($9, superseded_by), commit_sha = COALESCE($10, commit_sha),
       owner_host = COALESCE($11, owner_host), owner_pid = COALESCE($12::integer, owner_pid),
       owner_start = COALESCE($13, owner_start)
     WHERE id = $14 AND state = ANY($15::text[])
     RETURNING *`,
    [to, now, isTerminal(to) ? now : null, ...runPatchValues(patch), ...owner, id, from],
  );
  return row === undefined ? undefined : toRun(row);
}
