import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { ProcessOwner } from '../../../domain/run/model.js';
import type { Store } from '../../../ports/store.js';
import { createStoreContext } from './sqlite-context.js';
import { applyMigrations } from './migrations.js';
import { recoverInterrupted } from './recover-interrupted.js';
import * as groups from './store-queries.js';
import { ownerState, processOwner } from '../shared/process-owner.js';
import { queriesOn } from '../shared/query-groups.js';
import { newRunId } from '../shared/run-id.js';
import { type StoreQueries, serializedStore } from './serialized.js';

export interface SqliteStoreOptions {
  /** Database file; its directory is created (0700) when missing. `:memory:` works for throwaway use. */
  path: string;
  now?: () => Date;
  newId?: () => string;
  /** How long a write waits for another connection's lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** The process recorded on the locks and in-flight runs this connection writes; default this process. */
  owner?: ProcessOwner;
}

/** How this connection commits: what a power cut can cost. */
export interface SqliteSettings {
  journalMode: string;
  synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
}

/** Runs and Slack-side state share one database file and one connection, so they can share transactions. */
export type SqliteStore = Store & { settings(): SqliteSettings };

const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const;

export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const now = options.now ?? (() => new Date());
  const inMemory = options.path === ':memory:';
  if (!inMemory) mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
  const db = new Database(options.path);
  try {
    if (!inMemory) chmodSync(options.path, 0o600);
    // WAL lets the Slack handlers read while a runner writes; the busy timeout turns brief write
    // contention between connections into a wait instead of an error.
    db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk before the call returns, so `applying` is durable before terraform starts.
    // SQLite's WAL default (NORMAL) may lose the last commits to an OS crash or a power cut, and a lost
    // `approved -> applying` would have the next start apply the run again. Set after the journal mode,
    // which otherwise resets it; its cost per transition is in bench/results.md (store).
    db.pragma('synchronous = FULL');
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    db.pragma('foreign_keys = ON');
    applyMigrations(db, options.path);
  } catch (err) {
    db.close();
    throw err;
  }

  const self = processOwner();
  const ctx = createStoreContext(db, () => now().getTime(), options.newId ?? (() => newRunId(now())), {
    owner: options.owner ?? self,
    ownerState: (owner) => ownerState(owner, self),
  });
  const queries: StoreQueries = {
    ...queriesOn(ctx, groups),
    recoverInterrupted: (options) => recoverInterrupted(ctx, options),
    ping: () => {
      db.prepare('SELECT 1').get();
    },
  };
  return {
    ...serializedStore(db, queries),
    settings: () => ({
      journalMode: String(db.pragma('journal_mode', { simple: true })),
      synchronous: SYNCHRONOUS[Number(db.pragma('synchronous', { simple: true }))] ?? 'OFF',
    }),
  };
}
