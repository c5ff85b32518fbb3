import { runPatchValues } from '../shared/write-values.js';
import type { Run } from '../../../domain/run/model.js';
import { isTerminal, type RunState } from '../../../domain/run/state.js';
import type { NewRun, RunPatch, RunQuery, RunStore } from '../../../ports/store.js';
import type { Synchronous } from './synchronous.js';
import { ensureStack, type StoreContext } from './sqlite-context.js';
import { toRun } from '../shared/rows.js';
import { selectFiltered } from './select-filtered.js';
import { transitionSources } from '../shared/transition-check.js';

type RunQueries = Pick<Synchronous<RunStore>, 'createRun' | 'getRun' | 'listRuns' | 'transition'>;

export function runQueries(ctx: StoreContext): RunQueries {
  const createRun = ctx.db.transaction((input: NewRun): Run => {
    ensureStack(ctx, input.stack);
    const now = ctx.nowMs();
    const row = ctx
      .stmt(
        `INSERT INTO runs (id, stack, state, trigger, created_at, updated_at, commit_sha, owner_host, owner_pid, owner_start)
         VALUES (?, ?, 'planning', ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(ctx.newId(), input.stack, input.trigger, now, now, input.commitSha ?? null, ...ownerValues(ctx));
    return toRun(row);
  });

  return {
    createRun: (input) => createRun.immediate(input),

    getRun(id) {
      const row = ctx.stmt('SELECT * FROM runs WHERE id = ?').get(id);
      return row === undefined ? undefined : toRun(row);
    },

    listRuns(query: RunQuery = {}) {
      const filters = { stack: query.stack, state: query.states };
      return selectFiltered(ctx, 'runs', filters, 'created_at DESC, rowid DESC', query.limit).map(toRun);
    },

    transition(id, from, to, patch = {}) {
      return compareAndSet(ctx, id, transitionSources(id, from, to), to, patch);
    },
  };
}

function ownerValues(ctx: StoreContext): [string, number, string] {
  return [ctx.owner.host, ctx.owner.pid, ctx.owner.start];
}

/** The whole compare-and-set is one UPDATE: of two callers racing from the same state, one matches. */
function compareAndSet(
  ctx: StoreContext,
  id: string,
  from: readonly RunState[],
  to: RunState,
  patch: RunPatch,
): Run | undefined {
  const now = ctx.nowMs();
  const sql = `UPDATE runs SET
      state = ?, updated_at = ?, finished_at = COALESCE(?, finished_at),
      kind = COALESCE(?, kind), fingerprint = COALESCE(?, fingerprint), counts = COALESCE(?, counts),
      plan_sha256 = COALESCE(?, plan_sha256), error = COALESCE(?, error),
      superseded_by = COALESCE(?, superseded_by), commit_sha = COALESCE(?, commit_sha),
      owner_host = COALESCE(?, owner_host), owner_pid = COALESCE(?, owner_pid), owner_start = COALESCE(?, owner_start)
    WHERE id = ? AND state IN (${from.map(() => '?').join(', ')})
    RETURNING *`;
  const row = ctx.stmt(sql).get(
    to,
    now,
    isTerminal(to) ? now : null,
    ...runPatchValues(patch),
    // Whoever starts an apply works on the run from here on; recovery asks whether that process is gone.
    ...(to === 'applying' ? ownerValues(ctx) : [null, null, null]),
    id,
    ...from,
  );
  return row === undefined ? undefined : toRun(row);
}
