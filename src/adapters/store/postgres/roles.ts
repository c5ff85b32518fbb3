import type pg from 'pg';
import { DriftgateError } from '../../../domain/errors.js';
import { AUDIT_GUARD_FUNCTION, AUDIT_GUARD_TRIGGERS, quoteIdentifier, STORE_TABLES } from './migrations.js';

/**
 * What the processes' role may do on each table beside the owner role: the audit is only read and added
 * to (its guard is the owner's, so no process can switch it off), the schema's version only read.
 */
const RUNTIME_PRIVILEGES: Partial<Record<(typeof STORE_TABLES)[number], string>> = {
  audit: 'SELECT, INSERT',
  schema_migrations: 'SELECT',
};
const READ_WRITE = 'SELECT, INSERT, UPDATE, DELETE';

/** The owner role cannot take the store over, or what it takes over is not the store driftgate made. */
export class StoreHandoverError extends DriftgateError {
  constructor(message: string) {
    super('CONFIG_INVALID', `${message} (docs/production.md: "Two database roles")`);
  }
}

/** The role a pool's connections log in as. */
export async function currentRole(db: pg.Pool | pg.PoolClient): Promise<string> {
  const { rows } = await db.query<{ role: string }>('SELECT current_user AS role');
  return rows[0]!.role;
}

interface Target {
  lockScope: string;
  /** The store's schema when named in the config; else the owner session's current schema. */
  schema?: string;
}

/** Under the migrations' lock: replicas starting together would collide on the same catalog rows. */
async function ownerSession(client: pg.PoolClient, target: Target): Promise<{ owner: string; schema: string }> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${target.lockScope}:migrations`]);
  const { rows } = await client.query<{ owner: string; schema: string | null }>(
    'SELECT current_user AS owner, current_schema() AS schema',
  );
  return { owner: rows[0]!.owner, schema: target.schema ?? rows[0]!.schema ?? 'public' };
}

/** The store's tables, its audit guard's function and its schema (but `public`), with their owners. */
async function storeObjects(client: pg.PoolClient, s: string): Promise<(StoreObject & { table?: string })[]> {
  const { rows: tables } = await client.query<{ name: string; owner: string }>(
    `SELECT c.relname AS name, pg_get_userbyid(c.relowner) AS owner FROM pg_class c
      WHERE c.relnamespace = to_regnamespace($1) AND c.relname = ANY($2) AND c.relkind IN ('r', 'p')`,
    [s, STORE_TABLES],
  );
  const { rows: beside } = await client.query<StoreObject>(
    `SELECT 'FUNCTION' AS kind, $1::text || '.audit_append_only()' AS name, pg_get_userbyid(proowner) AS owner
       FROM pg_proc WHERE proname = 'audit_append_only' AND pronamespace = to_regnamespace($1)
     UNION ALL
     -- public is the database owner's (or the superuser's): docs/production.md has the database made the owner role's.
     SELECT 'SCHEMA', $1::text, pg_get_userbyid(nspowner) FROM pg_namespace
      WHERE oid = to_regnamespace($1) AND nspname <> 'public'`,
    [s],
  );
  return [
    ...tables.map((t) => ({
      kind: 'TABLE' as const,
      name: `${s}.${quoteIdentifier(t.name)}`,
      owner: t.owner,
      table: t.name,
    })),
    ...beside,
  ];
}

/**
 * Run as the owner role before the migrations: takes the store over from whoever made it (the processes'
 * role, in a deployment from before there were two), and makes the audit's guard again when it took the
 * audit over. Nothing to do on a store the owner made, or when both URLs name one role.
 */
export async function takeOverStore(client: pg.PoolClient, target: Target): Promise<void> {
  const { owner, schema } = await ownerSession(client, target);
  const s = quoteIdentifier(schema);
  const objects = await storeObjects(client, s);
  const others = objects.filter((object) => object.owner !== owner);
  if (others.length === 0) return;
  await takeOver(client, others, { owner, schema });
  if (objects.some((object) => object.table === 'audit')) await remakeAuditGuard(client, s);
}

/**
 * Run as the owner role after the migrations: grants `runtimeRole` what the processes need and nothing
 * more. The same role on both URLs is left as it is: the caller warns that the audit is then unprotected.
 */
export async function grantRuntime(client: pg.PoolClient, target: Target & { runtimeRole: string }): Promise<void> {
  const { owner, schema } = await ownerSession(client, target);
  if (owner === target.runtimeRole) return;
  const s = quoteIdentifier(schema);
  const runtime = quoteIdentifier(target.runtimeRole);
  const grants = (await storeObjects(client, s)).flatMap(({ name, table }) => {
    if (!table) return [];
    const privileges = RUNTIME_PRIVILEGES[table as (typeof STORE_TABLES)[number]] ?? READ_WRITE;
    // REVOKE ALL first: what the role held as the tables' maker (TRUNCATE, TRIGGER, REFERENCES) goes.
    return [`REVOKE ALL ON ${name} FROM ${runtime}; GRANT ${privileges} ON ${name} TO ${runtime};`];
  });
  await client.query(`GRANT USAGE ON SCHEMA ${s} TO ${runtime}; ${grants.join('\n')}`);
}

interface StoreObject {
  kind: 'TABLE' | 'FUNCTION' | 'SCHEMA';
  /** Qualified and quoted, as SQL names it. */
  name: string;
  owner: string;
}

async function takeOver(
  client: pg.PoolClient,
  objects: StoreObject[],
  { owner, schema }: { owner: string; schema: string },
): Promise<void> {
  try {
    for (const { kind, name } of objects)
      await client.query(`ALTER ${kind} ${name} OWNER TO ${quoteIdentifier(owner)}`);
  } catch (err) {
    if ((err as { code?: unknown }).code !== '42501') throw err;
    const previous = [...new Set(objects.map((object) => `"${object.owner}"`))].join(', ');
    throw new StoreHandoverError(
      `the store's tables in schema "${schema}" belong to ${previous}, and the owner role "${owner}" may not take them over: as a superuser, run GRANT ${previous} TO "${owner}", run driftgate migrate again, then REVOKE ${previous} FROM "${owner}"`,
    );
  }
}

/**
 * The audit was its previous owner's to change: make its guard again, and refuse what driftgate never
 * made on it (a trigger, a rule or a row policy could drop or hide rows the guard would have kept).
 */
async function remakeAuditGuard(client: pg.PoolClient, s: string): Promise<void> {
  await client.query(`SET LOCAL search_path = ${s}`);
  await client.query(`CREATE OR REPLACE FUNCTION audit_append_only() ${AUDIT_GUARD_FUNCTION}`);
  for (const [name, create] of Object.entries(AUDIT_GUARD_TRIGGERS))
    await client.query(`DROP TRIGGER IF EXISTS audit_${name} ON audit; ${create}`);
  const { rows } = await client.query<{ what: string }>(
    `SELECT 'trigger ' || tgname AS what FROM pg_trigger
      WHERE tgrelid = 'audit'::regclass AND NOT tgisinternal AND tgname <> ALL($1)
     UNION ALL SELECT 'rule ' || rulename FROM pg_rules WHERE schemaname = current_schema() AND tablename = 'audit'
     UNION ALL SELECT 'row level security' FROM pg_class WHERE oid = 'audit'::regclass AND relrowsecurity`,
    [Object.keys(AUDIT_GUARD_TRIGGERS).map((name) => `audit_${name}`)],
  );
  if (rows.length > 0)
    throw new StoreHandoverError(
      `the audit table has ${rows.map((r) => r.what).join(', ')}, which driftgate never made: it was added while the processes' role owned the table; look at it, drop it, and run driftgate migrate again`,
    );
}

/**
 * Why the role of these connections could rewrite the audit, if it can: what a deployment with one role
 * for everything is told at start. Empty when the audit is the owner role's and this role may only add to it.
 */
export async function auditExposure(db: pg.Pool): Promise<string[]> {
  const { rows } = await db.query<Record<string, boolean | string>>(
    `SELECT current_user AS role, n.nspname AS schema, r.rolsuper AS superuser,
        pg_has_role(current_user, c.relowner, 'MEMBER') AS owns_audit,
        pg_has_role(current_user, n.nspowner, 'MEMBER') AS owns_schema,
        COALESCE(pg_has_role(current_user, p.proowner, 'MEMBER'), false) AS owns_guard,
        has_table_privilege(c.oid, 'UPDATE, DELETE, TRUNCATE, TRIGGER') AS may_change,
        has_schema_privilege(n.oid, 'CREATE') AS may_create
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_roles r ON r.rolname = current_user
      LEFT JOIN pg_proc p ON p.proname = 'audit_append_only' AND p.pronamespace = n.oid
      WHERE c.oid = to_regclass('audit')`,
  );
  const found = rows[0];
  if (!found) return [];
  const role = `"${String(found.role)}"`;
  const schema = `"${String(found.schema)}"`;
  const reasons: [unknown, string][] = [
    [found.superuser, `${role} is a superuser`],
    [found.owns_audit, `${role} owns the audit table`],
    [found.owns_schema, `${role} owns schema ${schema}, so it may drop the audit table`],
    [found.owns_guard, `${role} owns the audit's trigger function`],
    [found.may_change, `${role} may update, delete, truncate or add triggers to the audit table`],
    [found.may_create, `${role} may create objects in schema ${schema}`],
  ];
  return reasons.filter(([holds]) => holds === true).map(([, reason]) => reason);
}
