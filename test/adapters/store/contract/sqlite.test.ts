import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import { openSqliteStore } from '../../../../src/adapters/store/sqlite/open-sqlite-store.js';
import { describeStoreContract } from './store-contract.js';

const root = mkdtempSync(join(tmpdir(), 'driftgate-contract-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let path: string | undefined;
let next = 0;

const current = () => {
  if (!path) throw new Error('no database yet: freshDatabase runs before each test');
  return path;
};

// The same cases as Postgres: a file per test, each `open` another connection to it, as another process has.
describeStoreContract('sqlite', {
  async freshDatabase() {
    path = join(root, `store-${next++}`, 'driftgate.db');
  },
  open: async (options = {}) => openSqliteStore({ path: current(), ...options }),
  async execRaw(sql) {
    const db = new Database(current());
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  },
});
