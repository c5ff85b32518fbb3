import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreNeedsOwnerError } from '../../../../src/adapters/store/postgres/connect.js';
import { POSTGRES_MIGRATIONS } from '../../../../src/adapters/store/postgres/migrations.js';
import {
  openPostgresStore,
  type PostgresStoreOptions,
} from '../../../../src/adapters/store/postgres/open-postgres-store.js';
import { StoreHandoverError } from '../../../../src/adapters/store/postgres/roles.js';
import type { Store } from '../../../../src/ports/store.js';
import { addOwnerRole, type RoleDatabase, roleDatabase, sqlAs } from '../../../helpers/postgres-roles.js';
import { usePostgres } from '../../../helpers/postgres.js';

const server = usePostgres();
const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

const VARIABLE = 'DATABASE_OWNER_URL';

async function open(url: string, options: Partial<PostgresStoreOptions> = {}): Promise<Store> {
  const store = await openPostgresStore({ url, poolSize: 2, schemaOwner: { variable: VARIABLE }, ...options });
  opened.push(store);
  return store;
}

/** The owner migrates (as `driftgate migrate` does), then the processes open the store with their role only. */
async function migrated(db: RoleDatabase): Promise<{ store: Store; exposed: string[][] }> {
  await (
    await openPostgresStore({ url: db.runtimeUrl, schemaOwner: { url: db.ownerUrl, variable: VARIABLE } })
  ).close();
  const exposed: string[][] = [];
  const store = await open(db.runtimeUrl, { onAuditExposed: (reasons) => exposed.push(reasons) });
  return { store, exposed };
}

async function withAudit(store: Store): Promise<void> {
  const run = await store.createRun({ stack: 'prod/app', trigger: 'manual' });
  await store.appendAudit({ at: new Date(1000), actor: 'U1', action: 'approve', runId: run.id, stack: 'prod/app' });
  await store.appendAudit({ at: new Date(2000), actor: 'U2', action: 'apply', runId: run.id, stack: 'prod/app' });
}

const auditRows = async (admin: string) =>
  (await sqlAs(admin, 'SELECT id, actor, action FROM audit ORDER BY id')).rows as unknown[];

/**
 * What a process holding the role of store.url could do to the audit if that role owned it: each attack,
 * when allowed, leaves the audit other than it was (a row gone or rewritten, or the table replaced).
 */
const TAMPERING: [string, string][] = [
  [
    'switches the row guard off, deletes, switches it on',
    'ALTER TABLE audit DISABLE TRIGGER audit_no_update_or_delete; DELETE FROM audit; ALTER TABLE audit ENABLE TRIGGER audit_no_update_or_delete',
  ],
  [
    'switches every user trigger off and rewrites who approved',
    "ALTER TABLE audit DISABLE TRIGGER USER; UPDATE audit SET actor = 'U-forged'; ALTER TABLE audit ENABLE TRIGGER USER",
  ],
  ['drops the guard and deletes', 'DROP TRIGGER audit_no_update_or_delete ON audit; DELETE FROM audit'],
  [
    'makes the guard function let deletes through',
    'CREATE OR REPLACE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END $$; DELETE FROM audit',
  ],
  [
    'switches the truncate guard off and truncates',
    'ALTER TABLE audit DISABLE TRIGGER audit_no_truncate; TRUNCATE audit',
  ],
  [
    'takes the table over and empties it',
    'ALTER TABLE audit OWNER TO CURRENT_USER; ALTER TABLE audit DISABLE TRIGGER USER; DELETE FROM audit',
  ],
  [
    'drops the table and makes an empty one in its place',
    'DROP TABLE audit; CREATE TABLE audit (id bigint, at bigint, actor text, action text, run_id text, stack text, plan_sha256 text, detail jsonb)',
  ],
];

/** Refused however it is asked: by privileges, or by the guard itself. */
const PLAIN_WRITES = [
  "UPDATE audit SET actor = 'U-forged'",
  'DELETE FROM audit',
  'TRUNCATE audit',
  'SET session_replication_role = replica',
  // A function of the session's own (pg_temp needs no CREATE on a schema): the trigger is what is refused.
  `CREATE FUNCTION pg_temp.swallow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
   CREATE TRIGGER swallow BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION pg_temp.swallow()`,
  'CREATE RULE swallow AS ON INSERT TO audit DO INSTEAD NOTHING',
  'ALTER TABLE audit ENABLE ROW LEVEL SECURITY',
];

/** Runs an attack in a transaction it rolls back, and says what the audit held at its end. */
async function attack(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(sql);
    return (await client.query('SELECT id, actor, action FROM audit ORDER BY id')).rows;
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    await client.end();
  }
}

describe('the Postgres store with an owner role and a role for the processes', () => {
  it('with one role for everything (before): every attack rewrites the audit, and the start warns', async () => {
    const db = await roleDatabase(await server.createDatabase(), { oneRole: true });
    const { store, exposed } = await migrated(db);
    await withAudit(store);
    const before = await auditRows(db.admin);
    for (const [name, sql] of TAMPERING) expect(await attack(db.runtimeUrl, sql), name).not.toEqual(before);
    expect(exposed).toHaveLength(1);
    expect(exposed[0]).toEqual(expect.arrayContaining([`"${db.runtime}" owns the audit table`]));
  });

  it('lets the processes run the store and add to the audit, never change it nor switch its guard off', async () => {
    const db = await roleDatabase(await server.createDatabase());
    const { store, exposed } = await migrated(db);
    await withAudit(store);
    expect(exposed).toEqual([]);
    const run = (await store.listRuns({}))[0]!;
    await store.transition(run.id, 'planning', 'errored', { error: 'boom' });
    expect((await store.listAudit({ runId: run.id })).map((a) => a.actor)).toEqual(['U1', 'U2']);
    await store.atomically(async (tx) => {
      await tx.upsertStack('prod/db');
      await tx.appendAudit({ at: new Date(3000), actor: 'U3', action: 'silence', stack: 'prod/db' });
    });
    const before = await auditRows(db.admin);
    expect(before).toHaveLength(3);

    for (const [name, sql] of TAMPERING)
      await expect(attack(db.runtimeUrl, sql), name).rejects.toMatchObject({ code: '42501' });
    for (const sql of PLAIN_WRITES)
      await expect(attack(db.runtimeUrl, sql), sql).rejects.toMatchObject({ code: '42501' });
    expect(await auditRows(db.admin)).toEqual(before);
    const owners = await sqlAs(
      db.admin,
      `SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'S', 'i')`,
    );
    expect(owners.rows).toEqual([{ owner: db.owner }]);
  });

  it('refuses to start on a schema that needs migrating without the owner, naming the variable', async () => {
    const db = await roleDatabase(await server.createDatabase());
    const err = await open(db.runtimeUrl).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreNeedsOwnerError);
    expect((err as Error).message).toContain(
      `is at schema version 0 and this driftgate needs ${POSTGRES_MIGRATIONS.length}, which store.url's role "${db.runtime}" may not make: run driftgate migrate with the owner role's URL in ${VARIABLE}`,
    );
  });

  it('takes a one-role store over once the owner may, keeping its rows, and guards it from then on', async () => {
    const db = await roleDatabase(await server.createDatabase(), { oneRole: true });
    const { store } = await migrated(db);
    await withAudit(store);
    await store.close();
    opened.splice(0);
    const two = await addOwnerRole(db);
    const refused = await migrated(two).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreHandoverError);
    expect((refused as Error).message).toContain(
      `belong to "${db.runtime}", and the owner role "${two.owner}" may not take them over: as a superuser, run GRANT "${db.runtime}" TO "${two.owner}"`,
    );

    await sqlAs(db.admin, `GRANT ${db.runtime} TO ${two.owner}`);
    const { store: after, exposed } = await migrated(two);
    await sqlAs(db.admin, `REVOKE ${db.runtime} FROM ${two.owner}`);
    expect(exposed).toEqual([]);
    const before = await auditRows(db.admin);
    expect(before).toHaveLength(2);
    for (const [name, sql] of TAMPERING)
      await expect(attack(db.runtimeUrl, sql), name).rejects.toMatchObject({ code: '42501' });
    expect(await auditRows(db.admin)).toEqual(before);
    await after.appendAudit({ at: new Date(3000), actor: 'U3', action: 'approve' });
    expect(await after.listAudit({})).toHaveLength(3);
  });

  it('refuses to take over an audit that was given a trigger of someone else’s while one role owned it', async () => {
    const db = await roleDatabase(await server.createDatabase(), { oneRole: true });
    const { store } = await migrated(db);
    await store.close();
    opened.splice(0);
    await sqlAs(
      db.runtimeUrl,
      `CREATE FUNCTION swallow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
       CREATE TRIGGER swallow BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION swallow();
       ALTER TABLE audit DISABLE TRIGGER audit_no_update_or_delete`,
    );
    const two = await addOwnerRole(db);
    await sqlAs(db.admin, `GRANT ${db.runtime} TO ${two.owner}`);
    const refused = await migrated(two).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreHandoverError);
    expect((refused as Error).message).toContain('the audit table has trigger swallow, which driftgate never made');
    // Nothing was handed over: the transaction went back whole.
    const owner = await sqlAs(
      db.admin,
      `SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE oid = 'audit'::regclass`,
    );
    expect(owner.rows).toEqual([{ owner: db.runtime }]);
  });
});
