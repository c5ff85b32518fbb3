import Database from 'better-sqlite3';
import { DriftgateError } from '../../../domain/errors.js';
import type { ProcessOwner } from '../../../domain/run/model.js';
import type { LeaderLease } from '../../../ports/leader-lease.js';
import { ownerState, processOwner } from '../shared/process-owner.js';

/** The `serve` that holds a SQLite store's lease, as its row says. */
export interface ServeLeaseHolder extends ProcessOwner {
  since: Date;
  expiresAt: Date;
}

/** Another `serve` runs on this SQLite store: a second one would run every check and alert twice. */
export class ServeLeaseHeldError extends DriftgateError {
  constructor(
    readonly path: string,
    readonly holder: ServeLeaseHolder,
  ) {
    super(
      'SERVE_ALREADY_RUNNING',
      `another driftgate serve runs on ${path}: pid ${holder.pid} on host ${holder.host}, since ${holder.since.toISOString()}. ` +
        `A SQLite store has one serve: stop that one first (in Kubernetes, one replica with strategy: Recreate), ` +
        `or use a Postgres store for several. If that process is gone (another host cannot tell), its lease ends at ` +
        `${holder.expiresAt.toISOString()} and serve starts then.`,
    );
  }
}

export interface SqliteServeLeaseOptions {
  /** The store's file, already migrated (the store was opened first). */
  path: string;
  /** How long the lease lasts without a renewal: how long a holder on another host that died blocks a start. */
  ttlMs?: number;
  /** How often the holder renews it; default a third of `ttlMs`. */
  renewMs?: number;
  now?: () => number;
  owner?: ProcessOwner;
  /** Told when this process no longer holds the lease (another took it after a renewal was missed). */
  onLost: (holder: ServeLeaseHolder | undefined) => void;
  onError: (err: Error) => void;
}

interface LeaseRow {
  host: string;
  pid: number;
  start: string;
  since: number;
  expires_at: number;
}

const holderOf = (row: LeaseRow): ServeLeaseHolder => ({
  host: row.host,
  pid: row.pid,
  start: row.start,
  since: new Date(row.since),
  expiresAt: new Date(row.expires_at),
});

/**
 * The single `serve` of a SQLite store: a lease row in the store's own file, renewed while serve runs and
 * deleted when it stops. A start finding it held by a live process is refused (ServeLeaseHeldError). A
 * holder that died on this host (its pid gone or reused) is replaced at once; one on another host (two
 * pods sharing a volume) only once its lease runs out, as nothing here can see that host's processes.
 */
export function takeSqliteServeLease(options: SqliteServeLeaseOptions): LeaderLease {
  const ttlMs = options.ttlMs ?? 30_000;
  const now = options.now ?? Date.now;
  const self = options.owner ?? processOwner();
  const db = new Database(options.path);
  let heldUntil = 0;
  let timer: NodeJS.Timeout | undefined;
  try {
    db.pragma('busy_timeout = 5000');
    const take = db.transaction(() => {
      const row = db.prepare('SELECT * FROM serve_lease WHERE id = 1').get() as LeaseRow | undefined;
      const at = now();
      if (row && row.expires_at > at && ownerState(row, self) !== 'gone')
        throw new ServeLeaseHeldError(options.path, holderOf(row));
      db.prepare(
        'INSERT OR REPLACE INTO serve_lease (id, host, pid, start, since, expires_at) VALUES (1, ?, ?, ?, ?, ?)',
      ).run(self.host, self.pid, self.start, at, at + ttlMs);
      heldUntil = at + ttlMs;
    });
    take.immediate();
  } catch (err) {
    db.close();
    throw err;
  }

  const renew = () => {
    try {
      const at = now();
      const renewed = db
        .prepare('UPDATE serve_lease SET expires_at = ? WHERE id = 1 AND host = ? AND pid = ? AND start = ?')
        .run(at + ttlMs, self.host, self.pid, self.start);
      if (renewed.changes === 1) {
        heldUntil = at + ttlMs;
        return;
      }
      const row = db.prepare('SELECT * FROM serve_lease WHERE id = 1').get() as LeaseRow | undefined;
      heldUntil = 0;
      stopRenewing();
      options.onLost(row ? holderOf(row) : undefined);
    } catch (err) {
      // A busy or unreadable file: the lease holds until `heldUntil`, and the next renewal tries again.
      options.onError(err instanceof Error ? err : new Error(String(err)));
    }
  };
  const stopRenewing = () => clearInterval(timer);
  timer = setInterval(renew, options.renewMs ?? Math.floor(ttlMs / 3));
  timer.unref();

  return {
    // Past its end without a renewal, the lease may be another's already: this serve stops leading.
    isLeader: () => now() < heldUntil,
    firstAttempt: Promise.resolve(true),
    async stop() {
      stopRenewing();
      try {
        // Only its own: a lease another took meanwhile stays with it.
        db.prepare('DELETE FROM serve_lease WHERE id = 1 AND host = ? AND pid = ? AND start = ?').run(
          self.host,
          self.pid,
          self.start,
        );
      } finally {
        heldUntil = 0;
        db.close();
      }
    },
  };
}
