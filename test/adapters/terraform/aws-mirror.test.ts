import { CopyObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startLocalS3, type LocalS3 } from '../../helpers/s3rver.js';
import { AWS_MIRROR_SKIP_REASON, HAS_AWS_MIRROR } from '../../helpers/terraform-env.js';
import { stackConfig } from '../../helpers/stack-config.js';
import { testRunner, useTerraformTestDirs, writeFiles } from './fixtures.js';

const MAIN_TF = `
terraform {
  required_providers {
    aws = { source = "hashicorp/aws" }
  }
}
variable "s3_endpoint" { type = string }
provider "aws" {
  region                      = "us-east-1"
  s3_use_path_style           = true
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = true
  skip_region_validation      = true
  endpoints { s3 = var.s3_endpoint }
}
resource "aws_s3_object" "greeting" {
  bucket       = "bucket"
  key          = "greeting.txt"
  content      = "hello"
  content_type = "text/plain"
  metadata     = { owner = "driftgate" }
}
`;

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
  const stack = stackConfig('test', dir, {
    vars: { s3_endpoint: s3.endpoint },
    // Credentials in the environment, as in production: not in HCL, not in argv.
    env: { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_EC2_METADATA_DISABLED: 'true' },
  });
  const { runner } = testRunner(dirs.tfEnv, dirs.tmp);
  const planFile = join(dirs.tmp, 'aws.tfplan');

  expect(await runner.plan(stack, planFile)).toMatchObject({ initRan: true, hasChanges: true });
  await runner.apply(stack, planFile);

  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  try {
    await client.send(
      new CopyObjectCommand({
        Bucket: 'bucket',
        Key: 'greeting.txt',
        CopySource: 'bucket/greeting.txt',
        MetadataDirective: 'REPLACE',
        ContentType: 'application/json',
        Metadata: { owner: 'someone-else' },
      }),
    );
    expect((await client.send(new HeadObjectCommand({ Bucket: 'bucket', Key: 'greeting.txt' }))).ContentType).toBe('application/json');
  } finally {
    client.destroy();
  }

  const drifted = await runner.plan(stack, planFile);
  expect(drifted).toMatchObject({ initRan: false, hasChanges: true });
  const plan = JSON.parse(await runner.showJson(stack, planFile)) as PlanJson;
  const drift = plan.resource_drift?.find((d) => d.address === 'aws_s3_object.greeting');
  expect(drift?.change.after.content_type).toBe('application/json');
});
