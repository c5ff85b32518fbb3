import pg from 'pg';
import type { LeaderLease } from '../../../ports/leader-lease.js';

export interface LeaderLeaseOptions {
  url: string;
  /** The advisory lock's key: one per kind of leadership (the control plane's is one). */
  key: number;
  /** How often a follower asks for the lock, and a leader checks that its connection still holds it. */
  checkMs?: number;
  /** Called with true when this process becomes the leader, false when it stops being it. */
  onChange: (leader: boolean) => void;
  onError: (err: Error) => void;
}

/**
 * Leadership among the control-plane replicas: a session-level advisory lock held by one connection. A
 * leader that dies takes its connection with it and Postgres frees the lock at once (a kill closes the
 * socket); a connection lost without a word (a cut network) is ended by Postgres's keepalives within
 * about 11 s, and the leader that lost it steps down at its next check, before anyone else can lead.
 */
export function startLeaderLease(options: LeaderLeaseOptions): LeaderLease {
  const checkMs = options.checkMs ?? 2000;
  let client: pg.Client | undefined;
  let leader = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const setLeader = (value: boolean) => {
    if (leader === value) return;
    leader = value;
    options.onChange(value);
  };

  const drop = async () => {
    const old = client;
    client = undefined;
    setLeader(false);
    await old?.end().catch(() => undefined);
  };

  const connect = async (): Promise<pg.Client> => {
    const next = new pg.Client({
      connectionString: options.url,
      application_name: 'driftgate-leader',
      keepAlive: true,
      // Postgres's side of the same connection: a silent peer is given up after 5 + 3 × 2 s.
      options: '-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3',
      query_timeout: Math.max(1000, checkMs),
    });
    next.on('error', (err) => {
      options.onError(err);
      if (client === next) void drop();
    });
    await next.connect();
    return next;
  };

  const tick = async () => {
    try {
      if (!client) client = await connect();
      if (leader) {
        // Still ours while this connection lives; the query proves it does.
        await client.query('SELECT 1');
      } else {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [options.key]);
        if (rows[0]?.ok) setLeader(true);
      }
    } catch (err) {
      options.onError(err instanceof Error ? err : new Error(String(err)));
      await drop();
    }
  };

  let first!: (leading: boolean) => void;
  const firstAttempt = new Promise<boolean>((resolve) => (first = resolve));
  const loop = async () => {
    await tick();
    first(leader);
    if (!stopped) timer = setTimeout(() => void loop(), checkMs);
  };
  void loop();

  return {
    isLeader: () => leader,
    firstAttempt,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await drop();
    },
  };
}
