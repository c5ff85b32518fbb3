import pg from 'pg';
import { PgBoss, type Job, type Queue } from 'pg-boss';
import { z } from 'zod';
import { DriftgateError } from '../../domain/errors.js';
import { isPoolName, POOL_NAME_RULE } from '../../domain/pool/pool-name.js';
import { RelayedEvent } from '../../domain/relayed-event.js';
import { RUN_TRIGGERS } from '../../domain/run/state.js';
import type { JobQueue, PoolJob, PoolJobKind, PoolQueueDepth } from '../../ports/job-queue.js';

/** What travels in a job: checked when a worker takes it (another version may have queued it). */
const PoolJobData = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('check'), stack: z.string().min(1), trigger: z.enum(RUN_TRIGGERS) }),
  z.object({ kind: z.literal('apply'), stack: z.string().min(1), runId: z.string().min(1), actor: z.string().min(1) }),
  z.object({
    kind: z.literal('codify'),
    stack: z.string().min(1),
    runId: z.string().min(1),
    requestId: z.string().min(1),
    requestedBy: z.string().min(1),
    threadUrl: z.string().optional(),
  }),
]);

export interface PgBossQueueOptions {
  url: string;
  /** Postgres schema of the queue's tables; default `driftgate_queue`, beside the store's tables. */
  schema?: string;
  /** Connections this process opens for the queue. */
  poolSize?: number;
  /** Longest a job may run: terraform's plan or apply timeout plus a margin. */
  maxRunSeconds: Record<PoolJobKind, number>;
  /**
   * How long a taken job may go without its worker's heartbeat before it counts as abandoned (pg-boss's
   * floor is 10 s): a check is then taken by another worker, an apply is failed and never run again.
   */
  heartbeatSeconds?: number;
  /** How often abandoned and expired jobs are looked for. */
  superviseSeconds?: number;
  /**
   * false: this process only looks at the queue (`driftgate workers`): it runs none of pg-boss's
   * maintenance and monitoring, and listens for no job. Depths are then those the last monitoring pass
   * of a serve or worker counted. Default true.
   */
  supervise?: boolean;
  /** Reports the queue's own errors (a lost connection it retries); they never end the process. */
  onError: (err: Error) => void;
  applicationName?: string;
}

/**
 * Per kind: a check may run again after its worker died (a plan changes nothing), an apply never (the
 * infrastructure may be half applied: a person decides), a codify once more (it only writes files).
 */
const RETRIES: Record<PoolJobKind, number> = { check: 2, apply: 0, codify: 1 };

export const queueName = (kind: PoolJobKind, pool: string): string => `driftgate.${kind}.${pool}`;
/** Where pg-boss moves an apply job that failed (its worker's heartbeat stopped, or its handler threw). */
export const ABANDONED_APPLIES = 'driftgate.apply-abandoned';
/** What workers' runs published, for the control plane. */
export const RELAYED_EVENTS = 'driftgate.events';

/**
 * pg-boss installs with CREATE SCHEMA IF NOT EXISTS, which needs CREATE on the database even when the
 * schema is there: a schema made for the processes' role beforehand (docs/production.md: "Two database roles") is
 * used as it is. The queue's tables are that role's own: pg-boss adds one per queue as queues appear.
 */
async function schemaExists(url: string, schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, application_name: 'driftgate-queue' });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ found: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS found',
      [schema],
    );
    return rows[0]?.found === true;
  } catch {
    // pg-boss's own start says what is wrong with the connection.
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The job queue on pg-boss, in the store's Postgres. One queue per kind and pool; `stately` with the stack
 * as singleton key gives each stack at most one job of a kind waiting and one running, so a stack is never
 * queued twice. Workers heartbeat their jobs; LISTEN/NOTIFY wakes an idle worker when a job is queued.
 */
export async function openPgBossQueue(options: PgBossQueueOptions): Promise<JobQueue> {
  const heartbeatSeconds = Math.max(10, options.heartbeatSeconds ?? 10);
  const superviseSeconds = options.superviseSeconds ?? 5;
  const schema = options.schema ?? 'driftgate_queue';
  const boss = new PgBoss({
    connectionString: options.url,
    schema,
    createSchema: !(await schemaExists(options.url, schema)),
    max: options.poolSize ?? 4,
    application_name: options.applicationName ?? 'driftgate-queue',
    useListenNotify: options.supervise ?? true,
    supervise: options.supervise ?? true,
    schedule: false,
    superviseIntervalSeconds: superviseSeconds,
    monitorIntervalSeconds: superviseSeconds,
    // How fresh the ready counts a worker reads before it polls again (burstWhenReadyExceeds) are.
    queueCacheIntervalSeconds: superviseSeconds,
  });
  boss.on('error', options.onError);
  await boss.start().catch((err: unknown) => {
    if ((err as { code?: unknown }).code !== '42501') throw err;
    throw new DriftgateError(
      'CONFIG_INVALID',
      `the job queue's schema "${schema}" is not there and store.url's role may not create it: as the database's owner, run CREATE SCHEMA ${schema} AUTHORIZATION <that role> (docs/production.md: "Two database roles")`,
      { cause: err },
    );
  });

  const ready = new Map<string, Promise<void>>();
  const createOnce = (name: string, settings: Omit<Queue, 'name'>): Promise<void> => {
    let created = ready.get(name);
    if (!created) {
      created = (async () => {
        if (await boss.getQueue(name)) return;
        await boss.createQueue(name, settings).catch(async (err: unknown) => {
          // Another process created it between the look and the create.
          if (!(await boss.getQueue(name))) throw err;
        });
      })();
      created.catch(() => ready.delete(name));
      ready.set(name, created);
    }
    return created;
  };
  // Marking a run interrupted is a compare-and-set: taking an abandoned apply twice changes nothing.
  const abandoned = () => createOnce(ABANDONED_APPLIES, { policy: 'standard', retryLimit: 5, notify: true });
  // key_strict_fifo by stack: a stack's events in order (an apply's verification before its result), one
  // at a time, whichever replica takes them; retried generously, since a failed one would hold the stack's.
  const relayed = () =>
    createOnce(RELAYED_EVENTS, {
      policy: 'key_strict_fifo',
      retryLimit: 20,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: 60,
      // A replica killed while it handles one would otherwise hold the stack's events until it expires.
      heartbeatSeconds,
      expireInSeconds: 120,
      notify: true,
    });
  const ensureQueue = async (kind: PoolJobKind, pool: string): Promise<void> => {
    if (!isPoolName(pool)) throw new Error(`pool "${pool}" is not a pool name: ${POOL_NAME_RULE}`);
    if (kind === 'apply') await abandoned();
    await createOnce(queueName(kind, pool), {
      policy: 'stately',
      retryLimit: RETRIES[kind],
      retryDelay: 2,
      retryBackoff: true,
      expireInSeconds: Math.ceil(options.maxRunSeconds[kind]),
      heartbeatSeconds,
      notify: true,
      ...(kind === 'apply' ? { deadLetter: ABANDONED_APPLIES } : {}),
    });
  };
  const parse = (job: Job<unknown>): PoolJob => {
    const parsed = PoolJobData.safeParse(job.data);
    if (!parsed.success)
      throw new Error(`job ${job.id} on ${job.name} is not a driftgate job: ${parsed.error.message}`);
    return parsed.data;
  };
  // NOTIFY wakes a worker for a new job, not for a retry whose delay is over: poll as often. After a job,
  // a worker fetches again at once while more than one job is ready (a sweep queues them all at once, and nothing
  // wakes it then): without that it waited out the 2 s interval between every two short plans.
  const polling = {
    batchSize: 1,
    pollingIntervalSeconds: 2,
    notifyPollingIntervalSeconds: 2,
    burstWhenReadyExceeds: 1,
  };

  return {
    async enqueue(pool, job) {
      await ensureQueue(job.kind, pool);
      const id = await boss.send(queueName(job.kind, pool), job, { singletonKey: job.stack });
      return id ? { queued: true, id } : { queued: false, reason: 'already_queued' };
    },
    async work(pool, kinds, concurrency, handler) {
      for (const kind of kinds) {
        await ensureQueue(kind, pool);
        await boss.work<PoolJob>(
          queueName(kind, pool),
          { ...polling, localConcurrency: concurrency },
          async ([job]: Job<PoolJob>[]) => {
            if (!job) return;
            const parsed = PoolJobData.safeParse(job.data);
            if (!parsed.success)
              throw new Error(`job ${job.id} on ${job.name} is not a driftgate job: ${parsed.error.message}`);
            await handler({ id: job.id, job: parsed.data, retry: job.retryCount, signal: job.signal });
          },
        );
      }
    },
    async workAbandonedApplies(handler) {
      await abandoned();
      await boss.work<unknown>(ABANDONED_APPLIES, polling, async ([job]) => {
        if (!job) return;
        const parsed = parse(job);
        if (parsed.kind === 'apply') await handler(parsed);
      });
    },
    async relay(event) {
      await relayed();
      await boss.send(RELAYED_EVENTS, event, { singletonKey: event.stack });
    },
    async workRelayed(handler) {
      await relayed();
      await boss.work<unknown>(RELAYED_EVENTS, { ...polling, localConcurrency: 4 }, async ([job]) => {
        if (!job) return;
        const parsed = RelayedEvent.safeParse(job.data);
        // Nothing to retry in an event this version cannot read: said, and let go.
        if (!parsed.success) {
          options.onError(
            new Error(`event ${job.id} on ${RELAYED_EVENTS} is not a driftgate event: ${parsed.error.message}`),
          );
          return;
        }
        await handler(parsed.data);
      });
    },
    async depth(pools) {
      const kinds = Object.keys(RETRIES) as PoolJobKind[];
      const names = pools.flatMap((pool) => kinds.map((kind) => ({ pool, kind })));
      const queues = await boss.getQueues(names.map((n) => queueName(n.kind, n.pool)));
      const byName = new Map(queues.map((q) => [q.name, q]));
      return names.map(({ pool, kind }): PoolQueueDepth => {
        const q = byName.get(queueName(kind, pool));
        return {
          pool,
          kind,
          waiting: q ? Number(q.queuedCount) : 0,
          active: q ? Number(q.activeCount) : 0,
          ...(q?.readyOldestSeconds != null ? { oldestWaitingSeconds: Number(q.readyOldestSeconds) } : {}),
        };
      });
    },
    async stop(timeoutMs) {
      await boss.stop({ graceful: true, timeout: timeoutMs });
    },
  };
}
