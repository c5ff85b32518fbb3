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
