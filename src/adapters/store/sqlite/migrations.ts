import type Database from 'better-sqlite3';
import { DriftgateError } from '../../../domain/errors.js';

/**
 * Schema steps, applied in order inside one transaction; `PRAGMA user_version` records the last one
 * applied. Append new steps, never edit an old one: databases in the field already ran it.
 * Dates are stored as epoch milliseconds so they compare as numbers.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE stacks (
    name TEXT PRIMARY KEY,
    status TEXT NOT NULL DEFAULT 'unknown',
    last_check_at INTEGER,
    last_run_id TEXT,
    drift_fingerprint TEXT,
    drift_run_id TEXT,
    drift_first_seen_at INTEGER,
    drift_last_seen_at INTEGER,
    drift_counts TEXT,
    blocked_reason TEXT,
    last_applied_commit TEXT
  );

  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    stack TEXT NOT NULL REFERENCES stacks(name),
    state TEXT NOT NULL,
    trigger TEXT NOT NULL,
    kind TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    commit_sha TEXT,
    fingerprint TEXT,
    counts TEXT,
    plan_sha256 TEXT,
    error TEXT,
    superseded_by TEXT
  );
  CREATE INDEX runs_stack_created ON runs(stack, created_at);
  CREATE INDEX runs_state ON runs(state);

  CREATE TABLE artifacts (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (run_id, kind)
  );

  CREATE TABLE audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    run_id TEXT,
    stack TEXT,
    plan_sha256 TEXT,
    detail TEXT
  );
  CREATE INDEX audit_run ON audit(run_id);
  CREATE INDEX audit_stack ON audit(stack);
  -- The audit trail is evidence: not even driftgate itself may rewrite it.
  CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
    BEGIN SELECT RAISE(ABORT, 'audit is append-only: UPDATE is not allowed'); END;
  CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
    BEGIN SELECT RAISE(ABORT, 'audit is append-only: DELETE is not allowed'); END;

  CREATE TABLE locks (
    stack TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    acquired_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `,
  // Slack-side state (issue 3). No foreign keys to runs: the outbox key and message refs are written
  // by the notifier, which must not fail because a run row is missing; the service layer owns that check.
  `
  CREATE TABLE approvals (
    run_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    UNIQUE (run_id, user_id)
  );

  CREATE TABLE slack_messages (
    run_id TEXT PRIMARY KEY,
    channel TEXT NOT NULL,
    ts TEXT NOT NULL
  );

  CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    method TEXT NOT NULL,
    payload TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT,
    record_message_for TEXT,
    delivered_at INTEGER,
    dead_at INTEGER
  );
  -- due() looks up the oldest open item per key: keep the open ones indexed by key, in order.
  CREATE INDEX outbox_open ON outbox(key, id) WHERE delivered_at IS NULL AND dead_at IS NULL;

  CREATE TABLE silences (
    stack TEXT PRIMARY KEY,
    until INTEGER NOT NULL,
    reason TEXT,
    by TEXT NOT NULL
  );

  CREATE TABLE snoozes (
    stack TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    until INTEGER NOT NULL,
    PRIMARY KEY (stack, fingerprint)
  );
  `,
  // The approver groups a person approved as: with policy requirements (2 from sre-leads and 1 from
  // senior), which requirement an approval counts toward. NULL for older rows: they count toward all.
  `
  ALTER TABLE approvals ADD COLUMN groups TEXT;
  `,
  // Remediation PRs: one per stack and drift fingerprint (the same drift links the PR already open).
  `
  CREATE TABLE remediations (
    stack TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    run_id TEXT NOT NULL,
    repository TEXT NOT NULL,
    branch TEXT NOT NULL,
    pr_number INTEGER NOT NULL,
    pr_url TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    codified INTEGER NOT NULL,
    left_for_person INTEGER NOT NULL,
    PRIMARY KEY (stack, fingerprint)
  );
  `,
  // The process working on a lock or an in-flight run (host, pid, start time): a lock is broken and a run
  // interrupted only once that process is gone. NULL for older rows: they go by expiry, as before.
  `
  ALTER TABLE locks ADD COLUMN owner_host TEXT;
  ALTER TABLE locks ADD COLUMN owner_pid INTEGER;
  ALTER TABLE locks ADD COLUMN owner_start TEXT;
  ALTER TABLE runs ADD COLUMN owner_host TEXT;
  ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
  ALTER TABLE runs ADD COLUMN owner_start TEXT;
  `,
  // A check's outcome not yet announced (JSON of an Announcement), written with the outcome itself.
  `
  ALTER TABLE runs ADD COLUMN announcement TEXT;
  `,
  // What identifies a plan cheaply (see domain/plan/signature.ts): a later identical plan reuses its analysis.
  `
  ALTER TABLE runs ADD COLUMN plan_signature TEXT;
  CREATE INDEX runs_plan_signature ON runs (stack, plan_signature);
  `,
  // How many checks in a row have planned the same changes (a perpetual diff is named after K of them).
  `
  ALTER TABLE stacks ADD COLUMN same_plan_fingerprint TEXT;
  ALTER TABLE stacks ADD COLUMN same_plan_checks INTEGER NOT NULL DEFAULT 0;
  `,
  // Which stack owns a cloud resource, for change events: each stack's identifiers and the state they came from.
  `
  CREATE TABLE resource_index (
    stack TEXT PRIMARY KEY,
    serial INTEGER,
    lineage TEXT,
    resources TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  // Change events that matched no stack, for `/drift events`: the newest few kept, every one counted per hour.
  `
  CREATE TABLE unmatched_changes (
    event_id TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    change TEXT NOT NULL
  );
  CREATE INDEX unmatched_changes_at ON unmatched_changes (at DESC, event_id DESC);
  CREATE TABLE unmatched_change_counts (
    hour INTEGER PRIMARY KEY,
    count INTEGER NOT NULL
  );
  `,
  // Matched change events waiting for their stack's next check (its attribution), kept with the runs so
  // any replica, or a worker, can take them and a restart between the event and the check keeps them.
  `
  CREATE TABLE pending_changes (
    stack TEXT NOT NULL,
    event_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    change TEXT NOT NULL,
    PRIMARY KEY (stack, event_id)
  );
  CREATE INDEX resource_index_updated_at ON resource_index (updated_at);
  `,
  // Waiting changes in the order they came (seq): a check answers those that came before its plan began,
  // whatever the clocks of the processes that kept them say.
  `
  CREATE TABLE pending_changes_by_seq (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    stack TEXT NOT NULL,
    event_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    change TEXT NOT NULL,
    UNIQUE (stack, event_id)
  );
  INSERT INTO pending_changes_by_seq (stack, event_id, at, received_at, change)
    SELECT stack, event_id, at, received_at, change FROM pending_changes ORDER BY received_at, rowid;
  DROP TABLE pending_changes;
  ALTER TABLE pending_changes_by_seq RENAME TO pending_changes;
  `,
  // The one `serve` of a SQLite store: its process and how long its lease lasts unless renewed (one row).
  `
  CREATE TABLE serve_lease (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    start TEXT NOT NULL,
    since INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `,
];

/** The database was written by a newer driftgate: older code must not guess at a schema it does not know. */
export class StoreSchemaTooNewError extends DriftgateError {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      'CONFIG_INVALID',
      `run store ${path} has schema version ${found}, but this driftgate knows versions up to ${supported}; upgrade driftgate or point dataDir at another directory`,
    );
  }
}

export function applyMigrations(
  db: Database.Database,
  path: string,
  migrations: readonly string[] = MIGRATIONS,
): number {
  const latest = migrations.length;
  const migrate = db.transaction(() => {
    // Read inside the write transaction: another process may have migrated since we opened the file.
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > latest) throw new StoreSchemaTooNewError(path, current, latest);
    for (let version = current; version < latest; version++) {
      db.exec(migrations[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }
    return latest;
  });
  return migrate.immediate();
}
