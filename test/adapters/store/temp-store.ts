import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openSqliteStore, type SqliteStoreOptions } from '../../../src/adapters/store/sqlite/open-sqlite-store.js';
import type { RunStore } from '../../../src/ports/store.js';

/** A settable clock for TTL and timestamp tests. */
export function manualClock(start = Date.parse('2025-01-01T00:00:00Z')) {
  let ms = start;
  return {
    now: () => new Date(ms),
    advance(byMs: number) {
      ms += byMs;
    },
  };
}

/** A temp dir holding a real SQLite file; `open` gives one more connection to it. */
export function tempStoreDir() {
  const dir = mkdtempSync(join(tmpdir(), 'driftgate-store-'));
  const path = join(dir, 'data', 'driftgate.db');
  const opened: RunStore[] = [];
  return {
    dir,
    path,
    open(options: Pick<SqliteStoreOptions, 'now' | 'owner'> = {}): RunStore {
      const store = openSqliteStore({ path, ...options });
      opened.push(store);
      return store;
    },
    async cleanup() {
      for (const store of opened) {
        try {
          await store.close();
        } catch {
          // already closed by the test
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh temp store dir per test, removed after it: `const tmp = useTempStore();` inside a describe. */
export function useTempStore(): ReturnType<typeof tempStoreDir> {
  let current: ReturnType<typeof tempStoreDir> | undefined;
  beforeEach(() => {
    current = tempStoreDir();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  const active = () => {
    if (!current) throw new Error('useTempStore: only usable inside a test');
    return current;
  };
  return {
    get dir() {
      return active().dir;
    },
    get path() {
      return active().path;
    },
    open: (options) => active().open(options),
    cleanup: () => active().cleanup(),
  };
}
