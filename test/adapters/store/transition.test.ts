import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/adapters/store/sqlite/open-sqlite-store.js';
import { approvedRun } from './contract/target.js';
import { HAS_RACE_WORKER, RACE_WORKER, raceWorkers } from './race-workers.js';
import { useTempStore } from './temp-store.js';

// The contract races connections of one process; this races real processes on one file.
describe('run transitions across processes', () => {
  const tmp = useTempStore();

  it.skipIf(!HAS_RACE_WORKER)(
    'lets exactly one of several concurrent processes win each run (needs `npm run build`)',
    async () => {
      const store = openSqliteStore({ path: tmp.path });
      try {
        const ids: string[] = [];
        for (let i = 0; i < 200; i++) ids.push((await approvedRun(store, `stack-${i % 7}`)).id);
        const wins = await raceWorkers(RACE_WORKER, tmp.path, ids, 4);
        const all = wins.flat();
        expect(all.sort()).toEqual([...ids].sort());
        expect(new Set(all).size).toBe(ids.length);
        expect(await store.listRuns({ states: ['applying'] })).toHaveLength(ids.length);
      } finally {
        await store.close();
      }
    },
  );
});
