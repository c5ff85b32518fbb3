import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../../src/adapters/store/sqlite/open-sqlite-store.js';
import { createLogger } from '../../../src/logging/logger.js';
import { createSlackApi } from '../../../src/adapters/slack/api.js';
import { createOutboxWorker, type OutboxWorkerOptions } from '../../../src/services/outbox/outbox-worker.js';
import { startSlackEmulator, type SlackEmulator } from '../../helpers/slack-emulator.js';

export const TOKEN = 'xoxb-outbox-test-token-0123456789';
export const BACKOFF = { baseMs: 1000, maxMs: 60_000 };

/** Log lines written by a logger at debug level, for "the token is never logged" checks. */
export function captureLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'debug', destination: stream, redact: (l) => l }) };
}

/**
 * Per test: a temp dir with a real SQLite file, a Slack emulator on its own port, a settable clock, and
 * workers built on them. `reopen()` is a restart: a new store connection and a new worker on the same file.
 */
export function useOutboxFixture() {
  let dir = '';
  let emulator: SlackEmulator | undefined;
  const stores: SqliteStore[] = [];
  let ms = Date.parse('2025-01-01T00:00:00Z');
  const log = captureLogger();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'driftgate-outbox-'));
    emulator = await startSlackEmulator({ token: TOKEN });
    log.lines.length = 0;
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await emulator?.close();
    emulator = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const now = () => new Date(ms);
  function open(extra: Partial<OutboxWorkerOptions> = {}) {
    const store = openSqliteStore({ path: join(dir, 'driftgate.db'), now });
    stores.push(store);
    const api = createSlackApi({ token: TOKEN, apiUrl: emulator!.apiUrl, logger: log.logger });
    // random = 1: no jitter, so the delays below are exact.
    const worker = createOutboxWorker({
      store,
      api,
      now,
      logger: log.logger,
      backoff: BACKOFF,
      random: () => 1,
      ...extra,
    });
    return { store, api, worker };
  }

  return {
    get emulator() {
      return emulator!;
    },
    log,
    open,
    advance(byMs: number) {
      ms += byMs;
    },
    async close(store: SqliteStore) {
      await store.close();
      stores.splice(stores.indexOf(store), 1);
    },
  };
}
