/**
 * How both adapters split the store port into query modules, and the SQL they share: one list per group,
 * so a method added to the port lands in the same group on SQLite and on Postgres.
 */
export type StackMethods =
  | 'upsertStack'
  | 'getStack'
  | 'listStacks'
  | 'setStackStatus'
  | 'openDrift'
  | 'closeDrift'
  | 'blockStack'
  | 'unblockStack'
  | 'setLastAppliedCommit'
  | 'countSamePlan';

export type SlackMethods =
  | 'addApproval'
  | 'listApprovals'
  | 'setMessage'
  | 'getMessage'
  | 'hasMessage'
  | 'silence'
  | 'unsilence'
  | 'getSilence'
  | 'snooze'
  | 'isSnoozed';

export type OutboxMethods =
  | 'enqueue'
  | 'due'
  | 'markDelivered'
  | 'markFailed'
  | 'markDead'
  | 'pendingCount'
  | 'pruneDelivered'
  | 'pruneDead'
  | 'listDead';

/** The SET clause that clears a stack's open drift (the same columns in both schemas). */
export const CLEAR_DRIFT = `drift_fingerprint = NULL, drift_run_id = NULL, drift_first_seen_at = NULL,
  drift_last_seen_at = NULL, drift_counts = NULL`;

/**
 * The query groups each adapter builds on its context (its store-queries.ts exports them, by these names):
 * a group one adapter has and the other lacks does not compile.
 */
const QUERY_GROUPS = [
  'stackQueries',
  'runQueries',
  'runNoteQueries',
  'recordQueries',
  'lockQueries',
  'slackQueries',
  'outboxQueries',
  'remediationQueries',
  'resourceIndexQueries',
  'pendingChangeQueries',
  'unmatchedChangeQueries',
] as const;

type QueryGroupName = (typeof QUERY_GROUPS)[number];
type QueryGroup<C> = (ctx: C) => object;
/** The groups' types as one: the object `queriesOn` returns has every group's methods. */
type Merged<U> = (U extends unknown ? (all: U) => void : never) extends (all: infer I) => void ? I : never;

/** Every group's queries built on one context, in one object: the store's queries but recovery and ping. */
export function queriesOn<C, G extends Record<QueryGroupName, QueryGroup<C>>>(
  ctx: C,
  groups: G,
): Merged<ReturnType<G[QueryGroupName]>> {
  const queries = {};
  for (const name of QUERY_GROUPS) Object.assign(queries, groups[name](ctx));
  return queries as Merged<ReturnType<G[QueryGroupName]>>;
}
