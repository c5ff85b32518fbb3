/**
 * Change events with `runners: workers`, as processes: a `serve` (the control plane) takes the event and
 * queues the check; a worker of the stack's pool plans with the real AWS provider against the local S3
 * server, keeps the resource index in the shared store, takes the waiting changes for its attribution, and
 * asks CloudTrail (its own emulator, with its own credentials) who made drift a sweep found. The control
 * plane is pointed at a CloudTrail emulator of its own, which must hear nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../src/domain/run/model.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { postChangeEvent, tagEvent } from '../helpers/change-events-serve.js';
import { type CloudTrailEmulator, startCloudTrailEmulator, type TrailRecord } from '../helpers/cloudtrail-emulator.js';
import { approvers } from '../helpers/config-builder.js';
import { usePostgres } from '../helpers/postgres.js';
import { type DriftgateProcess, type PoolWorld, startPoolWorld } from '../helpers/pool-world.js';
import { waitFor } from '../helpers/process-wait.js';
import {
  changeOutOfBand,
  type S3ObjectSpec,
  s3ObjectStackHcl,
  s3StackSettings,
  s3TestClient,
  tagAsCreated,
} from '../helpers/s3-object-stack.js';
import { type LocalS3, startLocalS3 } from '../helpers/s3rver.js';
import { HAS_AWS_MIRROR } from '../helpers/terraform-env.js';
import { LEAD1, textOf } from './fixtures.js';

const postgres = usePostgres();
const STACK = 'prod/assets';
const BUCKET = 'driftgate-worker-events';
const SECRET = 'events-secret-of-the-worker-test';
const ALICE = 'U0ALICE';
const OBJECTS: S3ObjectSpec[] = [
  { name: 'config', key: 'config/app.json', content: '{}', contentType: 'application/json', tags: { team: 'a' } },
  { name: 'readme', key: 'README.md', content: 'hi', contentType: 'text/markdown', tags: { team: 'a' } },
];

async function gauge(p: DriftgateProcess, name: string): Promise<number> {
  const text = await (await fetch(`${p.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
}

/** Direct workers ask CloudTrail in their checks; on the agent API, the control plane asks a worker of the pool. */

describe.skipIf(!HAS_BUILD || !HAS_AWS_MIRROR)(
  `change events with workers (${HAS_BUILD ? BIN : NO_BUILD_REASON})`,
  () => {
    let cloud: LocalS3;
    let world: PoolWorld;
    let serve: DriftgateProcess;
    let workerTrail: CloudTrailEmulator;
    let controlPlaneTrail: CloudTrailEmulator;
    const client = () => s3TestClient(cloud);

    const runs = () => world.withStore((store) => store.listRuns({ stack: STACK }));
    /** The newest finished run of a trigger, once there are `n` of them. */
    const finished = (trigger: Run['trigger'], n: number) =>
      waitFor(
        `finished ${trigger} run #${n}`,
        async () => {
          const done = (await runs()).filter((r) => r.trigger === trigger && r.state !== 'planning');
          return done.length >= n ? done[0] : undefined;
        },
        150_000,
      );
    /** The run's alert, as the control plane posted it (the message the store names for the run). */
    const alertFor = (run: Run) =>
      waitFor(
        `the alert of run ${run.id}`,
        async () => {
          const ref = await world.withStore((store) => store.getMessage(run.id));
          return ref?.ts ? world.emulator.message(ref.channel, ref.ts) : undefined;
        },
        120_000,
      );

    beforeAll(async () => {
      cloud = await startLocalS3();
      workerTrail = await startCloudTrailEmulator();
      controlPlaneTrail = await startCloudTrailEmulator();
      const settings = s3StackSettings(cloud);
      world = await startPoolWorld({
        databaseUrl: await postgres.createDatabase(),
        stacks: { [STACK]: s3ObjectStackHcl({ bucket: BUCKET, objects: OBJECTS, bucketResource: 'assets' }) },
        stackSettings: { [STACK]: { ...settings, pool: 'prod' } },
        config: {
          ...approvers({ leads: [LEAD1] }, [{ stacks: '*', count: 1, from: ['leads'] }]),
          changeEvents: {
            secretEnv: 'EVENTS_SECRET',
            ownIdentities: ['arn:aws:iam::*:role/driftgate-*'],
            slackUsers: { 'alice@example.com': ALICE },
            debounce: '1s',
            // No region: each pool's workers ask CloudTrail in their own environment's.
          },
        },
        // Were the control plane to ask CloudTrail, it would ask this one.
        serveEnv: { EVENTS_SECRET: SECRET, AWS_ENDPOINT_URL_CLOUDTRAIL: controlPlaneTrail.endpoint },
      });
      await world.applyWithTerraform(STACK, { ...settings.env, TF_VAR_s3_endpoint: cloud.endpoint });
      await tagAsCreated(client(), BUCKET, OBJECTS);
      serve = await world.serve();
      const cloudEnv = { AWS_ENDPOINT_URL_CLOUDTRAIL: workerTrail.endpoint, AWS_REGION: 'eu-west-2' };
      // The pool's cloud credentials (here the S3 server's keys), its control plane and its token: nothing else.
      await world.worker('prod', {
        ...cloudEnv,
        AWS_ACCESS_KEY_ID: world.baseEnv.AWS_ACCESS_KEY_ID!,
        AWS_SECRET_ACCESS_KEY: world.baseEnv.AWS_SECRET_ACCESS_KEY!,
      });
    }, 400_000);

    afterAll(async () => {
      await world?.close();
      await workerTrail?.close();
      await controlPlaneTrail?.close();
      await cloud?.close();
    });

    it('indexes the stack on the worker; the control plane matches events against what the store holds', async () => {
      expect((await world.command(serve, `check ${STACK}`, LEAD1)).status).toBe(200);
      expect((await finished('manual', 1)).state).toBe('no_changes');
      const [indexed] = await world.withStore((store) => store.listResourceIndexes({ stack: STACK }));
      expect(indexed!.resources.map((r) => r.address).sort()).toEqual([
        'aws_s3_bucket.assets',
        'aws_s3_object.config',
        'aws_s3_object.readme',
      ]);
      // The control plane reads what the worker indexed within its refresh (10 s).
      await waitFor('the control plane to know 3 resources', async () =>
        (await gauge(serve, 'driftgate_change_events_indexed_resources')) === 3 ? true : undefined,
      );
    }, 120_000);

    it('attributes drift a sweep found from CloudTrail, asked by the worker', async () => {
      await changeOutOfBand(client(), BUCKET, 'README.md', { tags: { team: 'c' } });
      // CloudTrail has bob's call; no event was sent for it.
      workerTrail.add(tagEvent(BUCKET, 'README.md', 'bob-cli', '0000b0b0-sweep').detail as unknown as TrailRecord);
      expect((await world.command(serve, `check ${STACK}`, LEAD1)).status).toBe(200);
      const run = await finished('manual', 2);
      expect(run.state).toBe('drifted');
      const text = textOf(await alertFor(run));
      expect(text).toContain('bob');
      expect(text).toContain('`PutObjectTagging`');
      expect(text).toContain('`aws_s3_object.readme`');
      const asked = workerTrail.calls();
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((c) => c.signed && c.status === 200 && c.region === 'eu-west-2')).toBe(true);
      const named = asked.map((c) => (c.body.LookupAttributes as { AttributeValue: string }[])[0]!.AttributeValue);
      expect(named).toContain(`${BUCKET}/README.md`);
    }, 180_000);

    it('checks the stack an event names on the worker, and the alert names who made the change', async () => {
      await changeOutOfBand(client(), BUCKET, 'config/app.json', { tags: { team: 'b' } });
      for (const id of ['0000a11c-e001', '0000a11c-e002'])
        expect(
          (await postChangeEvent(serve.base, tagEvent(BUCKET, 'config/app.json', 'alice-console', id), SECRET)).status,
        ).toBe(202);
      const run = await finished('event', 1);
      expect(run.state).toBe('drifted');
      const text = textOf(await alertFor(run));
      expect(text).toContain(`<@${ALICE}>`);
      expect(text).toContain('in the console');
      expect(text).toContain('`aws_s3_object.config`');
      // The worker's check answered the waiting changes: none is left for a later check to misattribute.
      expect(await world.withStore((store) => store.readPendingChanges(STACK))).toEqual({ changes: [], unreadable: 0 });
      // Two clicks of one session made one check.
      expect((await runs()).filter((r) => r.trigger === 'event')).toHaveLength(1);
      // The control plane asked CloudTrail nothing, ever.
      expect(controlPlaneTrail.calls()).toEqual([]);
    }, 180_000);
  },
);
