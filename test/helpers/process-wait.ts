import { openSqliteStore } from '../../src/adapters/store/sqlite/open-sqlite-store.js';
import type { Store } from '../../src/ports/store.js';

/** Polls `probe` until it gives a value, for tests that watch another process work. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One short-lived connection to the store file another process writes. */
export async function withStoreAt<T>(path: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openSqliteStore({ path });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
