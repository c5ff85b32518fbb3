/** A stack whose Git repository cannot be fetched is a failed check in Slack, once, like a failed plan. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { gitSource, stackEntry } from '../helpers/config-builder.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { alerts, textOf } from './fixtures.js';

const startServe = useSlackServe();
let gone: string | undefined;
afterEach(async () => {
  if (gone) await rm(gone, { recursive: true, force: true });
  gone = undefined;
});

it('posts the fetch failure with the URL once, not on every check', async () => {
  gone = await mkdtemp(join(tmpdir(), 'driftgate-gone-'));
  const url = `file://${join(gone, 'no-such-repo.git')}`;
  const h = await startServe({
    stacks: {},
    config: { stacks: [stackEntry('prod/db', 'db')], ...gitSource(url) },
  });
  expect(await h.running.scheduler.request('prod/db')).toMatchObject({ status: 'errored', run: { state: 'errored' } });
  expect(await h.running.scheduler.request('prod/db')).toMatchObject({ status: 'errored', run: { state: 'errored' } });
  await h.settle();
  const posted = alerts(h, CHANNEL);
  expect(posted).toHaveLength(1);
  expect(textOf(posted[0])).toContain('prod/db');
  expect(textOf(posted[0])).toContain(url);
  expect((await h.running.context.store.listRuns({ stack: 'prod/db' })).map((r) => r.state)).toEqual([
    'errored',
    'errored',
  ]);
});
