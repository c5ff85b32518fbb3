import type pg from 'pg';
import { DriftgateError } from '../../../domain/errors.js';
import { withTransaction } from './postgres-context.js';

/**
 * The audit's guard, as the first step made it (the text is part of that step: keep it byte for byte).
 * A handover from the processes' role makes it again from here (see roles.ts).
 */
export const AUDIT_GUARD_FUNCTION = `RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'audit is append-only: % is not allowed', TG_OP; END
  $$`;
export const AUDIT_GUARD_TRIGGERS = {
  no_update_or_delete: `CREATE TRIGGER audit_no_update_or_delete BEFORE UPDATE OR DELETE ON audit
    FOR EACH ROW EXECUTE FUNCTION audit_append_only()`,
  no_truncate: `CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit
    FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only()`,
} as const;

/**
 * Schema steps for Postgres, applied in order, each once and in its own transaction; `schema_migrations`
 * records the versions applied. Append new steps, never edit an old one: databases in the field ran it.
 * The columns are those of the SQLite store, so both hand the same rows to the same parsers: times are
 * epoch milliseconds (bigint) from the store's clock, JSON is jsonb. `seq` columns give rows an insertion
 * order where SQLite has its rowid.
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE stacks (
    name text PRIMARY KEY,
    status text NOT NULL DEFAULT 'unknown',
    last_check_at bigint,
    last_run_id text,
    drift_fingerprint text,
    drift_run_id text,
    drift_first_seen_at bigint,
    drift_last_seen_at bigint,
    drift_counts jsonb,
    blocked_reason text,
    last_applied_commit text,
    same_plan_fingerprint text,
    same_plan_checks integer NOT NULL DEFAULT 0
  );

  CREATE TABLE runs (
    id text PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    stack text NOT NULL REFERENCES stacks(name),
    state text NOT NULL,
    trigger text NOT NULL,
    kind text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    finished_at bigint,
    commit_sha text,
    fingerprint text,
    counts jsonb,
    plan_sha256 text,
    error text,
    superseded_by text,
    owner_host text,
    owner_pid integer,
    owner_start text,
    announcement jsonb,
    plan_signature text
  );
  CREATE INDEX runs_stack_created ON runs (stack, created_at);
  CREATE INDEX runs_state ON runs (state);
  CREATE INDEX runs_plan_signature ON runs (stack, plan_signature);
  CREATE INDEX runs_unannounced ON runs (created_at) WHERE announcement IS NOT NULL;

  CREATE TABLE artifacts (
    run_id text NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind text NOT NULL,
    key text NOT NULL,
    sha256 text NOT NULL,
    size bigint NOT NULL,
    created_at bigint NOT NULL,
    UNIQUE (run_id, kind)
  );

  CREATE TABLE audit (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at bigint NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    run_id text,
    stack text,
    plan_sha256 text,
    detail jsonb
  );
  CREATE INDEX audit_run ON audit (run_id);
  CREATE INDEX audit_stack ON audit (stack);
  -- The audit trail is evidence: not even driftgate itself may rewrite it. (The table's owner could still
  -- drop the trigger: in production driftgate's role should be granted INSERT and SELECT on audit only.)
  CREATE FUNCTION audit_append_only() ${AUDIT_GUARD_FUNCTION};
  ${AUDIT_GUARD_TRIGGERS.no_update_or_delete};
  ${AUDIT_GUARD_TRIGGERS.no_truncate};

  CREATE TABLE locks (
    stack text PRIMARY KEY,
    run_id text NOT NULL,
    acquired_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    owner_host text,
    owner_pid integer,
    owner_start text
  );
  CREATE INDEX locks_run ON locks (run_id);

  -- Slack-side state. No foreign keys to runs: the notifier must not fail because a run row is missing.
  CREATE TABLE approvals (
    seq bigint GENERATED ALWAYS AS IDENTITY,
    run_id text NOT NULL,
    user_id text NOT NULL,
    at bigint NOT NULL,
    groups jsonb,
    UNIQUE (run_id, user_id)
  );

  CREATE TABLE slack_messages (
    run_id text PRIMARY KEY,
    channel text NOT NULL,
    ts text NOT NULL
  );

  CREATE TABLE outbox (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key text NOT NULL,
    method text NOT NULL,
    payload jsonb NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at bigint NOT NULL,
    last_error text,
    record_message_for text,
    delivered_at bigint,
    dead_at bigint
  );
  -- due() looks up the oldest open item per key: keep the open ones indexed by key, in order.
  CREATE INDEX outbox_open ON outbox (key, id) WHERE delivered_at IS NULL AND dead_at IS NULL;
  CREATE INDEX outbox_open_message ON outbox (record_message_for) WHERE delivered_at IS NULL AND dead_at IS NULL;

  CREATE TABLE silences (
    stack text PRIMARY KEY,
    until bigint NOT NULL,
    reason text,
    by text NOT NULL
  );

  CREATE TABLE snoozes (
    stack text NOT NULL,
    fingerprint text NOT NULL,
    until bigint NOT NULL,
    PRIMARY KEY (stack, fingerprint)
  );

  CREATE TABLE remediations (
    stack text NOT NULL,
    fingerprint text NOT NULL,
    run_id text NOT NULL,
    repository text NOT NULL,
    branch text NOT NULL,
    pr_number integer NOT NULL,
    pr_url text NOT NULL,
    requested_by text NOT NULL,
    created_at bigint NOT NULL,
    codified integer NOT NULL,
    left_for_person integer NOT NULL,
    PRIMARY KEY (stack, fingerprint)
  );
  `,
  // Workers' heartbeats (runners: workers). last_seen_at is the database's clock, not the worker's: one
  // clock for every host, so a worker whose machine runs late is not taken for a dead one.
  `
  CREATE TABLE workers (
    id text PRIMARY KEY,
    pool text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    concurrency integer NOT NULL,
    running integer NOT NULL,
    started_at bigint NOT NULL,
    last_seen_at bigint NOT NULL
  );
  `,
  // Which stack owns a cloud resource, for change events: each stack's identifiers and the state they came from.
  `
  CREATE TABLE resource_index (
    stack text PRIMARY KEY,
    serial bigint,
    lineage text,
    resources jsonb NOT NULL,
    updated_at bigint NOT NULL
  );
  `,
  // Change events that matched no stack, for `/drift events`: the newest few kept, every one counted per hour.
  `
  CREATE TABLE unmatched_changes (
    event_id text PRIMARY KEY,
    at bigint NOT NULL,
    received_at bigint NOT NULL,
    change jsonb NOT NULL
  );
  CREATE INDEX unmatched_changes_at ON unmatched_changes (at DESC, event_id DESC);
  CREATE TABLE unmatched_change_counts (
    hour bigint PRIMARY KEY,
    count bigint NOT NULL
  );
  `,
  // Matched change events waiting for their stack's next check (its attribution), kept with the runs so
  // any replica, or a worker, can take them and a restart between the event and the check keeps them.
  `
  CREATE TABLE pending_changes (
    stack text NOT NULL,
    event_id text NOT NULL,
    at bigint NOT NULL,
    received_at bigint NOT NULL,
    change jsonb NOT NULL,
    PRIMARY KEY (stack, event_id)
  );
  CREATE INDEX resource_index_updated_at ON resource_index (updated_at);
  `,
  // Waiting changes in the order they came (seq): a check answers those that came before its plan began,
  // whatever the clocks of the processes that kept them say. Rows of one stack are added under its lock.
  `
  ALTER TABLE pending_changes ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
  CREATE UNIQUE INDEX pending_changes_seq ON pending_changes (stack, seq);
  `,
  // The pools' tokens for the agent API: a worker holds one, the control plane its sha256 only.
  `
  CREATE TABLE pool_tokens (
    id text PRIMARY KEY,
    pool text NOT NULL,
    name text NOT NULL,
    hash text NOT NULL,
    created_at bigint NOT NULL,
    created_by text NOT NULL,
    last_used_at bigint,
    revoked_at bigint,
    revoked_by text
  );
  CREATE INDEX pool_tokens_pool ON pool_tokens (pool, created_at DESC);
  `,
  // terraform commands the control plane hands to a pool's workers through the agent API (plan, state
  // pull, apply), with what goes in and comes out of each: one worker holds an op at a time, by its lease.
  // Times are the database's clock: replicas and workers may disagree, the lease does not.
  `
  CREATE TABLE agent_ops (
    id text PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    pool text NOT NULL,
    stack text NOT NULL,
    kind text NOT NULL,
    request jsonb NOT NULL,
    state text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL,
    lease_hash text,
    lease_token_id text,
    lease_expires_at bigint,
    result jsonb,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  );
  CREATE INDEX agent_ops_waiting ON agent_ops (pool, state, seq);
  CREATE TABLE agent_op_files (
    op_id text NOT NULL REFERENCES agent_ops(id) ON DELETE CASCADE,
    direction text NOT NULL,
    name text NOT NULL,
    body bytea NOT NULL,
    sha256 text NOT NULL,
    PRIMARY KEY (op_id, direction, name)
  );
  `,
];

/**
 * Every table the steps make, in the order references need: what the owner role owns and grants the
 * processes' role (see roles.ts), and what a copy from SQLite fills.
 */
export const STORE_TABLES = [
  'schema_migrations',
  'stacks',
  'runs',
  'artifacts',
  'audit',
  'locks',
  'approvals',
  'slack_messages',
  'outbox',
  'silences',
  'snoozes',
  'remediations',
  'workers',
  'resource_index',
  'unmatched_changes',
  'unmatched_change_counts',
  'pending_changes',
  'pool_tokens',
  'agent_ops',
  'agent_op_files',
] as const;

/** The database was migrated by a newer driftgate: older code must not guess at a schema it does not know. */
export class PostgresSchemaTooNewError extends DriftgateError {
  constructor(
    readonly database: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      'CONFIG_INVALID',
      `run store ${database} has schema version ${found}, but this driftgate knows versions up to ${supported}; upgrade driftgate or point store.url at another database`,
    );
  }
}

/**
 * Brings the schema up to date. Replicas starting together take turns: each step runs under a
 * transaction-scoped advisory lock and re-reads the version inside it, so a step another replica has
 * just applied is not applied again. Returns the version the database is at. A current schema is only
 * read: a role that may not change it (the processes' role beside an owner role) opens it all the same.
 */
export async function applyPostgresMigrations(
  pool: pg.Pool,
  options: { database: string; lockScope: string; schema?: string },
  migrations: readonly string[] = POSTGRES_MIGRATIONS,
): Promise<number> {
  const latest = migrations.length;
  const found = await schemaVersion(pool);
  if (found > latest) throw new PostgresSchemaTooNewError(options.database, found, latest);
  if (found === latest) return latest;
  const step = (client: pg.PoolClient) => applyNextStep(client, options, migrations);
  while ((await withTransaction(pool, step)) < latest) {
    // one more step applied; the next transaction looks again
  }
  return latest;
}

/** The version the database is at: 0 before the first step (no `schema_migrations` yet). */
export async function schemaVersion(db: pg.Pool | pg.PoolClient): Promise<number> {
  const table = await db.query<{ present: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  if (!table.rows[0]?.present) return 0;
  const found = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return found.rows[0]?.version ?? 0;
}

/** Applies the step after the database's version, if any; returns the version it leaves the database at. */
async function applyNextStep(
  client: pg.PoolClient,
  options: { database: string; lockScope: string; schema?: string },
  migrations: readonly string[],
): Promise<number> {
  const latest = migrations.length;
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${options.lockScope}:migrations`]);
  if (options.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(options.schema)}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       version integer PRIMARY KEY,
       applied_at timestamptz NOT NULL DEFAULT now()
     )`,
  );
  const found = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  const current = found.rows[0]?.version ?? 0;
  if (current > latest) throw new PostgresSchemaTooNewError(options.database, current, latest);
  if (current === latest) return latest;
  await client.query(migrations[current]!);
  await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [current + 1]);
  return current + 1;
}

/** A schema name as an SQL identifier (it comes from config, so it is quoted, never pasted). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
