import { chmodSync, existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DriftgateError } from '../../../domain/errors.js';

export class StoreBackupError extends DriftgateError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

/**
 * A consistent copy of a SQLite store taken while serve runs: SQLite's online backup, page by page, which
 * restarts the pages a concurrent write changed. The copy is an ordinary database file (WAL folded in),
 * readable by the same driftgate version or a newer one (which migrates it when it opens it). Mode 0600:
 * the store holds who approved what, and the audit trail.
 */
export async function backupSqliteStore(source: string, destination: string): Promise<{ pages: number }> {
  if (!existsSync(source)) throw new StoreBackupError(`no SQLite store at ${source} (check dataDir)`);
  if (existsSync(destination))
    throw new StoreBackupError(`${destination} exists: name a new file (a backup never overwrites one)`);
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(destination);
    chmodSync(destination, 0o600);
    return { pages: totalPages };
  } finally {
    db.close();
  }
}
