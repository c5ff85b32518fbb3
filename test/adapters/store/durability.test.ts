import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/adapters/store/sqlite/open-sqlite-store.js';
import { useTempStore } from './temp-store.js';

describe('store durability', () => {
  const tmp = useTempStore();

  // A file already in WAL mode reopens with SQLite's WAL default (NORMAL: the last commits may be lost to
  // an OS crash), so the second connection is the one that shows it.
  it('commits with synchronous=FULL on every connection, the first and the ones after', async () => {
    for (let i = 0; i < 2; i++) {
      const store = openSqliteStore({ path: tmp.path });
      try {
        expect(store.settings()).toEqual({ journalMode: 'wal', synchronous: 'FULL' });
      } finally {
        await store.close();
      }
    }
  });

  // SQLite checks foreign keys only on a connection that turns them on: the contract sees that a write is
  // refused, this sees that it is refused for the reason that matters, on a first and a later connection.
  it('refuses an artifact of a run the file does not hold, as a foreign key violation, on every connection', async () => {
    for (let i = 0; i < 2; i++) {
      const store = openSqliteStore({ path: tmp.path });
      try {
        const artifact = { runId: 'r_unknown', kind: 'plan' as const, key: 'k', sha256: 'a'.repeat(64), size: 1 };
        await expect(store.addArtifact(artifact)).rejects.toThrow(/FOREIGN KEY/);
      } finally {
        await store.close();
      }
    }
  });
});
