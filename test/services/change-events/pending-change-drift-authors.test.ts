/**
 * A change merged to Git waits to be applied while someone also changed the real infrastructure by hand:
 * the plan is a pending change with real `resource_drift` (aws_s3_objects on the local S3 server), and its
 * message names who changed what drifted, since approving the plan overwrites that change. Real git,
 * real terraform with the AWS provider from the machine's mirror, a real SQLite store and outbox.
 */
import { runContent } from '../../../src/services/notify/run-content.js';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitSources } from '../../../src/adapters/git/git-sources.js';
import { createAppContext, type AppContext } from '../../../src/app/context.js';
import { startCheckHooks } from '../../../src/app/change-events.js';
import { parseConfig } from '../../../src/config/load.js';
import { ChangeEventsConfig } from '../../../src/config/schema.js';
import type { Run } from '../../../src/domain/run/model.js';
import { checkStackFromSource } from '../../../src/services/check/check-stack-from-source.js';
import { loadAttribution } from '../../../src/services/check/stored-attribution.js';
import { createRunMessages } from '../../../src/slack/notifier/run-messages.js';
import { makeTestRepo, type TestRepo } from '../../adapters/git/git-repo.js';
import { matchedChange } from '../../domain/change-events/fixtures.js';
import { configYaml, gitSource, slack, stackEntry } from '../../helpers/config-builder.js';
import {
  changeOutOfBand,
  s3ObjectStackHcl,
  s3StackSettings,
  s3TestClient,
  tagAsCreated,
  type S3ObjectSpec,
} from '../../helpers/s3-object-stack.js';
import { startLocalS3, type LocalS3 } from '../../helpers/s3rver.js';
import { lineSink } from '../../helpers/stack-files.js';
import { HAS_AWS_MIRROR, makeTerraformEnv, type TestTerraformEnv } from '../../helpers/terraform-env.js';

const STACK = 'prod/site';
const BUCKET = 'site';
const INDEX: S3ObjectSpec = {
  name: 'index',
  key: 'index.html',
  content: '<h1>hi</h1>',
  contentType: 'text/plain',
  tags: { Name: 'index' },
};
const ROBOTS: S3ObjectSpec = { name: 'robots', key: 'robots.txt', content: 'User-agent: *', contentType: 'text/plain' };

let repo: TestRepo | undefined;
let tf: TestTerraformEnv | undefined;
let s3: LocalS3 | undefined;
let client: S3Client | undefined;
let context: AppContext | undefined;
afterEach(async () => {
  await context?.close();
  client?.destroy();
  await s3?.close();
  await repo?.cleanup();
  await tf?.cleanup();
  repo = tf = s3 = client = context = undefined;
});

describe.skipIf(!HAS_AWS_MIRROR)('a pending change whose plan also shows drift', () => {
  it('names who changed what drifted in its message, answers the events it used, and keeps them when planned again', async () => {
    repo = await makeTestRepo();
    tf = await makeTerraformEnv('driftgate-pending-drift-');
    s3 = await startLocalS3([BUCKET]);
    client = s3TestClient(s3);
    const settings = s3StackSettings(s3);
    const env = { PATH: process.env.PATH, HOME: tf.dir, ...tf.env };
    const dataDir = join(tf.dir, 'data');
    const statePath = join(repo.dir, 'state', 'site.tfstate');
    const hcl = (objects: S3ObjectSpec[]) => s3ObjectStackHcl({ bucket: BUCKET, objects, statePath });
    const applied = await repo.commit(
      { '.gitignore': '.terraform/\n.terraform.lock.hcl\n', 'site/main.tf': hcl([INDEX, ROBOTS]) },
      'Add the site objects (#12)',
    );
    const yaml = configYaml(
      { dataDir, stacks: [stackEntry(STACK, 'site', settings)] },
      gitSource(repo.url),
      slack('C0OPS'),
    );
    context = await createAppContext(await parseConfig(yaml, { baseDir: tf.dir, env }), {
      env,
      logDestination: lineSink().stream,
    });
    const { store } = context;
    const stack = context.stack(STACK)!;
    const base = { ...context.deps, git: createGitSources({ dataDir, env }) };
    const hooks = await startCheckHooks(
      ChangeEventsConfig.parse({ secretEnv: 'EVENTS_SECRET', cloudTrail: { lookup: false } }),
      {},
      base,
      { account: 'driftgate', region: undefined },
    );
    try {
      const deps = { ...base, changeEvents: hooks.checks };
      const inWork = {
        cwd: join(repo.dir, 'work', 'site'),
        env: { ...env, ...settings.env, TF_VAR_s3_endpoint: s3.endpoint },
        extendEnv: false,
      };
      await execa('terraform', ['init', '-input=false', '-no-color'], inWork);
      await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], inWork);
      await tagAsCreated(client, BUCKET, [INDEX, ROBOTS]);
      await store.upsertStack(STACK);
      await store.setLastAppliedCommit(STACK, applied);
      expect(await checkStackFromSource(deps, stack, { trigger: 'schedule' })).toMatchObject({ status: 'no_changes' });

      // A change merged to Git, and someone in the console retagging another object meanwhile.
      const merged = await repo.commit(
        { 'site/main.tf': hcl([INDEX, { ...ROBOTS, contentType: 'text/x-robots' }]) },
        'Serve robots.txt as what it is (#13)',
      );
      await changeOutOfBand(client, BUCKET, 'index.html', { tags: { Name: 'index-v2' } });
      const event = matchedChange('0000e001-0000', {
        stack: STACK,
        address: 'aws_s3_object.index',
        name: 'mallory',
        eventName: 'PutObjectTagging',
      });
      await store.addPendingChanges(STACK, [event]);

      const outcome = await checkStackFromSource(deps, stack, { trigger: 'event' });
      expect(outcome).toMatchObject({
        status: 'pending_approval',
        run: { kind: 'pending_change', commitSha: merged },
      });
      const run = (outcome as { run: Run }).run;
      expect(await loadAttribution(deps, run.id)).toMatchObject({
        status: 'found',
        changes: [{ eventId: event.eventId, resource: 'aws_s3_object.index', eventName: 'PutObjectTagging' }],
      });
      expect((await store.readPendingChanges(STACK)).changes).toEqual([]);

      // The message as it goes out through the outbox, rendered from what the check stored.
      const messages = createRunMessages({
        config: context.config,
        store,
        content: runContent(deps),
        stack: (name) => context?.stack(name),
        canRemediate: false,
      });
      expect(await messages.post(run)).toBe(true);
      const [post] = await store.due(new Date(Date.now() + 60_000), 10);
      const payload = JSON.stringify(post?.payload);
      expect(payload).toContain(`Changes waiting to be applied in ${STACK}`);
      expect(payload).toContain('*Who changed what drifted* (approving this plan overwrites it)');
      expect(payload).toContain('mallory (IAM user)');
      expect(payload).toContain('PutObjectTagging');

      // The same plan checked again keeps who made the drift, and a later event adds to it.
      const later = matchedChange('0000e002-0000', {
        stack: STACK,
        address: 'aws_s3_object.index',
        name: 'trent',
        at: '2026-12-03T16:00:00Z',
        eventName: 'PutObjectTagging',
      });
      await store.addPendingChanges(STACK, [later]);
      const again = await checkStackFromSource(deps, stack, { trigger: 'event' });
      expect(again).toMatchObject({ status: 'pending_approval', run: { kind: 'pending_change' } });
      const named = await loadAttribution(deps, (again as { run: Run }).run.id);
      expect(named?.status === 'found' && named.changes.map((c) => c.principal.name).sort()).toEqual([
        'mallory',
        'trent',
      ]);
    } finally {
      hooks.stop();
    }
  }, 300_000);
});
