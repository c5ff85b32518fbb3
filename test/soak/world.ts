/**
 * The soak's world: the project's own two-replica pool e2e (test/helpers/pool-world.ts), with PagerDuty,
 * paging for prod, a digest window, a sweep every minute, and small stacks, one of them holding a canary
 * secret in a sensitive variable. Processes are kept in a roster that knows which ones the soak itself
 * ended, so a process that ends on its own is seen.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { approvers } from '../helpers/config-builder.js';
import { startPagerdutyReceiver, type PagerdutyReceiver } from '../helpers/pagerduty-receiver.js';
import { type DriftgateProcess, type PoolWorld, startPoolWorld } from '../helpers/pool-world.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { SENSITIVE_DATABASE } from '../helpers/stack-files.js';

export const LEADS = ['U0LEAD1', 'U0LEAD2', 'U0LEAD3'];
export const PD_KEY_ENV = 'PAGERDUTY_ROUTING_KEY_SOAK';
const PD_KEY = 'soak0123456789abcdef0123456789ab';
export const POOLS = ['prod', 'nonprod'] as const;
export type Pool = (typeof POOLS)[number];

/** A stack of the soak and the ways the driver can make it drift. */
export interface SoakStack {
  name: string;
  pool: Pool;
  /** Approvals its apply needs (prod: 2). */
  approvals: number;
  drifts: readonly DriftKind[];
}
/** `tags`: the VPC's tags edited in state; `slow`: the slow resource removed from state (its apply sleeps); `user`: the canary stack's user. */
export type DriftKind = 'tags' | 'slow' | 'user';

const vpc = (cidr: string, name: string) => `
resource "terraform_data" "vpc" {
  input = { cidr = "${cidr}", tags = { Name = "${name}", Team = "core" } }
}
`;
/**
 * Created again by every apply after the driver removed it from state: it writes the generation of that
 * removal to applies.log (two lines of one generation: applied twice) and takes a few seconds, long
 * enough to kill its worker or a replica mid-apply.
 */
const SLOW = `
resource "terraform_data" "slow" {
  input = "slow"
  provisioner "local-exec" {
    command = "cat generation >> applies.log; test -n \\"$SETUP\\" || sleep 5"
  }
}
`;

export const STACKS: readonly SoakStack[] = [
  { name: 'prod/app', pool: 'prod', approvals: 2, drifts: ['tags', 'slow'] },
  { name: 'prod/db', pool: 'prod', approvals: 2, drifts: ['tags', 'user'] },
  { name: 'nonprod/app', pool: 'nonprod', approvals: 1, drifts: ['tags'] },
  { name: 'nonprod/batch', pool: 'nonprod', approvals: 1, drifts: ['tags', 'slow'] },
  { name: 'nonprod/web', pool: 'nonprod', approvals: 1, drifts: ['tags'] },
];

function hclOf(stack: SoakStack, index: number): string {
  const parts = [vpc(`10.${index}.0.0/16`, stack.name)];
  if (stack.drifts.includes('slow')) parts.push(SLOW);
  // The canary's stack: a sensitive variable, copied into a resource's input.
  if (stack.drifts.includes('user')) parts.push(SENSITIVE_DATABASE);
  return parts.join('');
}

/** One process the soak started: what it is, and whether the soak ended it (kill -9 or stop). */
export interface Member {
  role: 'serve' | 'worker';
  pool?: Pool;
  proc: DriftgateProcess;
  /** Set when the soak killed or stopped it: any other end is a violation. */
  endedBySoak?: 'kill9' | 'stop';
}

export interface SoakWorld {
  pool: PoolWorld;
  postgres: TestPostgres;
  pagerduty: PagerdutyReceiver;
  /** The canary: a sensitive variable's value, which must never leave terraform. */
  canary: string;
  databaseUrl: string;
  /** Every process started, in order. */
  members: Member[];
  live(role: Member['role'], pool?: Pool): Member[];
  startServe(): Promise<Member>;
  startWorker(pool: Pool): Promise<Member>;
  kill9(member: Member): Promise<void>;
  /** Stops every live process with SIGTERM, each at once, and waits for their ends. */
  stopAll(): Promise<void>;
  /** Stops every live process (SIGTERM) and everything else; the members keep how they ended. */
  close(): Promise<void>;
}

export async function startSoakWorld(): Promise<SoakWorld> {
  const postgres = await startTestPostgres();
  const pagerduty = await startPagerdutyReceiver();
  const canary = `soak-canary-${randomBytes(8).toString('hex')}`;
  const databaseUrl = await postgres.createDatabase();
  let pool: PoolWorld;
  try {
    pool = await startPoolWorld({
      databaseUrl,
      stacks: Object.fromEntries(STACKS.map((s, i) => [s.name, hclOf(s, i)])),
      stackSettings: Object.fromEntries(
        STACKS.map((s) => [
          s.name,
          {
            pool: s.pool,
            ...(s.pool === 'prod' ? { environment: 'prod' } : { environment: 'nonprod' }),
            ...(s.drifts.includes('user') ? { vars: { password: '${SOAK_CANARY}' } } : {}),
          },
        ]),
      ),
      config: {
        ...approvers({ 'sre-leads': LEADS }, [
          { environments: ['prod'], count: 2, from: ['sre-leads'] },
          { stacks: '*', count: 1, from: ['sre-leads'] },
        ]),
        log: { level: 'info' },
        // A sweep every minute; a worker's lock runs out 10 s after it died.
        defaults: { schedule: '* * * * *', lockTtl: '10s' },
        // Alerts wait 3 s, and four stacks drifting at once make a digest: a replica can die holding them.
        slack: { digestWindow: '3s', digestThreshold: 3 },
        pagerduty: { routing: [{ environments: ['prod'], routingKeyEnv: PD_KEY_ENV }] },
      },
      serveEnv: { PAGERDUTY_EVENTS_URL: pagerduty.eventsUrl, [PD_KEY_ENV]: PD_KEY },
      env: { SOAK_CANARY: canary },
    });
  } catch (err) {
    await pagerduty.close();
    await postgres.stop();
    throw err;
  }
  for (const stack of STACKS) {
    await writeFile(join(pool.stackDir(stack.name), 'generation'), 'setup\n');
    await pool.applyWithTerraform(stack.name, { SETUP: '1', TF_VAR_password: canary });
  }

  const members: Member[] = [];
  const add = (member: Member) => {
    members.push(member);
    return member;
  };
  const stopAll = async () => {
    const live = members.filter((m) => !m.endedBySoak && !m.proc.exited());
    for (const m of live) m.endedBySoak = 'stop';
    await Promise.all(live.map((m) => m.proc.stop()));
  };
  return {
    pool,
    postgres,
    pagerduty,
    canary,
    databaseUrl,
    members,
    live: (role, p) =>
      members.filter((m) => m.role === role && (p === undefined || m.pool === p) && !m.endedBySoak && !m.proc.exited()),
    startServe: async () => add({ role: 'serve', proc: await pool.serve() }),
    startWorker: async (p) => add({ role: 'worker', pool: p, proc: await pool.worker(p) }),
    async kill9(member) {
      member.endedBySoak = 'kill9';
      await member.proc.kill9();
    },
    stopAll,
    async close() {
      await stopAll();
      await pool.close().catch(() => undefined);
      await pagerduty.close();
      await postgres.stop();
    },
  };
}
