import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database with its URLs: the superuser's (for the test's own looks), the owner role's, the processes'. */
export interface RoleDatabase {
  admin: string;
  ownerUrl: string;
  runtimeUrl: string;
  owner: string;
  runtime: string;
}

/** Runs SQL as the given URL's role, on a connection of its own. */
export async function sqlAs(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

function urlAs(url: string, role: string, password: string): string {
  const out = new URL(url);
  out.username = role;
  out.password = password;
  return out.toString();
}

/**
 * Two plain LOGIN roles (neither a superuser) on a fresh database, as docs/production.md "Two database roles" has an
 * operator create them. `oneRole`: today's deployment instead, one role that owns the database and does
 * everything (the owner URL is then the processes' own).
 */
export async function roleDatabase(admin: string, options: { oneRole?: boolean } = {}): Promise<RoleDatabase> {
  const suffix = randomBytes(4).toString('hex');
  const owner = `driftgate_owner_${suffix}`;
  const runtime = `driftgate_${suffix}`;
  const database = new URL(admin).pathname.slice(1);
  const [ownerPassword, runtimePassword] = [randomBytes(9).toString('hex'), randomBytes(9).toString('hex')];
  await sqlAs(admin, `CREATE ROLE ${runtime} LOGIN PASSWORD '${runtimePassword}'`);
  if (options.oneRole) {
    await sqlAs(admin, `ALTER DATABASE ${database} OWNER TO ${runtime}`);
    const runtimeUrl = urlAs(admin, runtime, runtimePassword);
    return { admin, ownerUrl: runtimeUrl, runtimeUrl, owner: runtime, runtime };
  }
  await sqlAs(admin, `CREATE ROLE ${owner} LOGIN PASSWORD '${ownerPassword}'`);
  await sqlAs(admin, `ALTER DATABASE ${database} OWNER TO ${owner}`);
  return {
    admin,
    ownerUrl: urlAs(admin, owner, ownerPassword),
    runtimeUrl: urlAs(admin, runtime, runtimePassword),
    owner,
    runtime,
  };
}

/**
 * README's handover from one role: an owner role of its own, and the database made its. The owner takes
 * the tables over at its first migrate, which needs a membership in the old role granted for that time.
 */
export async function addOwnerRole(db: RoleDatabase): Promise<RoleDatabase> {
  const owner = `${db.runtime.replace('driftgate_', 'driftgate_owner_')}`;
  const password = randomBytes(9).toString('hex');
  await sqlAs(db.admin, `CREATE ROLE ${owner} LOGIN PASSWORD '${password}'`);
  await sqlAs(db.admin, `ALTER DATABASE ${new URL(db.admin).pathname.slice(1)} OWNER TO ${owner}`);
  return { ...db, owner, ownerUrl: urlAs(db.admin, owner, password) };
}
