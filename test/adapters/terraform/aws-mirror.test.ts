import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { changeOutOfBand, s3ObjectStackHcl, s3StackSettings, s3TestClient } from '../../helpers/s3-object-stack.js';
import { startLocalS3, type LocalS3 } from '../../helpers/s3rver.js';
import { AWS_MIRROR_SKIP_REASON, HAS_AWS_MIRROR } from '../../helpers/terraform-env.js';
import { stackConfig } from '../../helpers/stack-config.js';
import { testRunner, useTerraformTestDirs, writeFiles } from './fixtures.js';

const MAIN_TF = s3ObjectStackHcl({
  bucket: 'bucket',
  objects: [
    {
      name: 'greeting',
      key: 'greeting.txt',
      content: 'hello',
      contentType: 'text/plain',
      metadata: { owner: 'driftgate' },
    },
  ],
});

interface PlanJson {
  resource_drift?: { address: string; change: { after: { content_type?: string } } }[];
}

const dirs = useTerraformTestDirs('driftgate-aws-');
let s3: LocalS3;
beforeEach(async () => {
  if (HAS_AWS_MIRROR) s3 = await startLocalS3(['bucket']);
});
afterEach(async () => {
  if (HAS_AWS_MIRROR) await s3.close();
});

// Each AWS provider start-up takes seconds on a busy 2-core machine and terraform starts it several
// times per command: five commands (init, plan, apply, plan, show) are the least this story needs.
it('finds drift made out of band on a real S3 object', { timeout: 400_000 }, async (ctx) => {
  if (!HAS_AWS_MIRROR) ctx.skip(AWS_MIRROR_SKIP_REASON);
  const dir = join(dirs.tmp, 'stack');
  await writeFiles(dir, { 'main.tf': MAIN_TF });
  // Credentials in the environment, as in production: not in HCL, not in argv.
  const stack = stackConfig('test', dir, s3StackSettings(s3));
  const { runner } = testRunner(dirs.tfEnv, dirs.tmp);
  const planFile = join(dirs.tmp, 'aws.tfplan');

  expect(await runner.plan(stack, planFile)).toMatchObject({ initRan: true, hasChanges: true });
  await runner.apply(stack, planFile);

  const client = s3TestClient(s3);
  try {
    await changeOutOfBand(client, 'bucket', 'greeting.txt', {
      contentType: 'application/json',
      metadata: { owner: 'someone-else' },
    });
    expect((await client.send(new HeadObjectCommand({ Bucket: 'bucket', Key: 'greeting.txt' }))).ContentType).toBe(
      'application/json',
    );
  } finally {
    client.destroy();
  }

  const drifted = await runner.plan(stack, planFile);
  expect(drifted).toMatchObject({ initRan: false, hasChanges: true });
  const plan = JSON.parse(await runner.showJson(stack, planFile)) as PlanJson;
  const drift = plan.resource_drift?.find((d) => d.address === 'aws_s3_object.greeting');
  expect(drift?.change.after.content_type).toBe('application/json');
});
