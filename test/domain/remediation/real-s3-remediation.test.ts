/**
 * The codify planner end to end on real drift: aws_s3_objects applied to the local S3 server, changed out
 * of band, planned, codified with `settable` from the real AWS provider schema, and planned again.
 * One apply for the whole file: every provider start costs seconds.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSecrets, createRedactor, parsePlanJson } from '../../../src/domain/plan/index.js';
import {
  parseProviderSchema,
  planRemediation,
  type ProviderSchema,
  type RemediationPlan,
  settableFrom,
  sensitiveFrom,
} from '../../../src/domain/remediation/index.js';
import type { TerraformRunner } from '../../../src/ports/terraform.js';
import { testRunner } from '../../adapters/terraform/fixtures.js';
import {
  changeOutOfBand,
  s3ObjectStackHcl,
  s3StackSettings,
  s3TestClient,
  tagAsCreated,
  type S3ObjectSpec,
} from '../../helpers/s3-object-stack.js';
import { startLocalS3, type LocalS3 } from '../../helpers/s3rver.js';
import { stackConfig } from '../../helpers/stack-config.js';
import { HAS_AWS_MIRROR, makeTerraformEnv, type TestTerraformEnv } from '../../helpers/terraform-env.js';
import { fmtDiff } from './terraform-checks.js';

const BUCKET = 'site';
const OBJECTS: S3ObjectSpec[] = [
  {
    name: 'report',
    key: 'report.txt',
    content: 'hello',
    contentType: 'text/plain',
    metadata: { owner: 'team-a', stage: 'draft' },
    tags: { Name: 'report' },
  },
  // No metadata in the code: it can only be added because the schema says it may be set.
  { name: 'bare', key: 'bare.txt', content: 'bare', contentType: 'text/plain' },
];

interface Setup {
  tf: TestTerraformEnv;
  s3: LocalS3;
  client: S3Client;
  runner: TerraformRunner;
  stack: ReturnType<typeof stackConfig>;
  original: string;
  schemaText: string;
  schemaMs: number;
  schema: ProviderSchema;
  result: RemediationPlan;
}

describe.skipIf(!HAS_AWS_MIRROR)('codifying real S3 drift with the real provider schema', () => {
  let setup: Setup;
  let work: string;

  beforeAll(async () => {
    const tf = await makeTerraformEnv('driftgate-real-codify-');
    const s3 = await startLocalS3([BUCKET]);
    const client = s3TestClient(s3);
    work = await mkdtemp(join(tmpdir(), 'driftgate-real-codify-work-'));
    const dir = join(work, 'stack');
    const original = s3ObjectStackHcl({ bucket: BUCKET, objects: OBJECTS });
    await mkdir(dir);
    await writeFile(join(dir, 'main.tf'), original);
    const stack = stackConfig('s3', dir, s3StackSettings(s3));
    const { runner } = testRunner(tf.env, work);
    const planFile = join(work, 'drift.tfplan');

    await runner.apply(stack, (await runner.plan(stack, planFile)).planFile);
    await tagAsCreated(client, BUCKET, OBJECTS);
    await changeOutOfBand(client, BUCKET, 'report.txt', {
      contentType: 'text/markdown',
      metadata: { owner: 'team-b', stage: 'draft', 'reviewed-by': 'ops' },
      tags: { Name: 'report-v2' },
    });
    await changeOutOfBand(client, BUCKET, 'bare.txt', { metadata: { added: 'by-hand' } });

    expect(await runner.plan(stack, planFile)).toMatchObject({ hasChanges: true });
    const plan = parsePlanJson(await runner.showJson(stack, planFile));
    const started = Date.now();
    const schemaText = await runner.providersSchema(stack);
    const schemaMs = Date.now() - started;
    const schema = parseProviderSchema(schemaText);
    const result = planRemediation(plan, [{ path: 'main.tf', text: original }], {
      redactor: createRedactor(collectSecrets(plan)),
      settable: settableFrom(schema),
    });
    for (const file of result.files) await writeFile(join(dir, file.path), file.text);
    setup = { tf, s3, client, runner, stack, original, schemaText, schemaMs, schema, result };
  }, 400_000);

  afterAll(async () => {
    setup?.client.destroy();
    await setup?.s3.close();
    await setup?.tf.cleanup();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('reads the whole AWS provider schema, far past the output limit', () => {
    // testRunner keeps 1 MiB of each stream; the schema is ~14 MB and must arrive whole.
    expect(setup.schemaText.length).toBeGreaterThan(10 * 1024 * 1024);
    expect(setup.schema.resources.size).toBeGreaterThan(1000);
    console.info(`providers schema -json: ${setup.schemaText.length} bytes in ${setup.schemaMs} ms`);
  });

  it('answers settable from the schema: required and optional yes, computed-only no, the rest unknown', () => {
    const settable = settableFrom(setup.schema);
    expect(settable('aws_s3_object', 'bucket')).toBe(true); // required
    expect(settable('aws_s3_object', 'metadata')).toBe(true); // optional
    expect(settable('aws_s3_object', 'version_id')).toBe(false); // computed only
    expect(settable('aws_s3_object', 'arn')).toBe(false);
    // optional + computed: derived by the provider when the code leaves it unset (tags_all) or not.
    expect(settable('aws_s3_object', 'tags_all')).toBeUndefined();
    expect(settable('aws_s3_object', 'content_type')).toBeUndefined();
    expect(settable('aws_s3_object', 'override_provider')).toBeUndefined(); // a nested block
    expect(settable('aws_s3_object', 'no_such_attribute')).toBeUndefined();
    expect(settable('aws_no_such_type', 'bucket')).toBeUndefined();
    expect(sensitiveFrom(setup.schema)('aws_db_instance', 'password')).toBe(true);
    expect(sensitiveFrom(setup.schema)('aws_s3_object', 'content')).toBe(false);
  });

  it('codifies content_type, metadata per key and tags, and adds metadata where the code has none', () => {
    const edits = setup.result.edits.map((e) => [e.address, e.path, e.value, e.before]);
    expect(edits).toEqual(
      expect.arrayContaining([
        ['aws_s3_object.report', ['content_type'], 'text/markdown', 'text/plain'],
        ['aws_s3_object.report', ['metadata', 'owner'], 'team-b', 'team-a'],
        ['aws_s3_object.report', ['metadata', 'reviewed-by'], 'ops', undefined],
        ['aws_s3_object.report', ['tags', 'Name'], 'report-v2', 'report'],
        ['aws_s3_object.bare', ['metadata'], { added: 'by-hand' }, undefined],
      ]),
    );
    expect(edits).toHaveLength(5);
    expect(setup.result.files[0]!.text).toContain(
      '  content_type = "text/plain"\n  metadata = {\n    added = "by-hand"\n  }\n}\n',
    );
  });

  it('writes no computed attribute: tags_all (optional+computed, derived from tags) is left with guidance', () => {
    const settable = settableFrom(setup.schema);
    for (const edit of setup.result.edits) expect(settable('aws_s3_object', String(edit.path[0]))).not.toBe(false);
    expect(setup.result.skipped).toEqual([
      expect.objectContaining({ address: 'aws_s3_object.report', attribute: 'tags_all', code: 'maybe-computed' }),
    ]);
    expect(setup.result.files[0]!.text).not.toMatch(/tags_all|version_id/);
  });

  it('leaves files that pass fmt -check and validate', async () => {
    const text = await readFile(join(setup.stack.dir, 'main.tf'), 'utf8');
    expect(text).not.toBe(setup.original);
    expect(await fmtDiff(setup.tf, setup.original)).toBe('');
    expect(await fmtDiff(setup.tf, text)).toBe('');
    const validate = await execa('terraform', ['validate', '-no-color'], {
      cwd: setup.stack.dir,
      env: { ...process.env, ...setup.tf.env },
      reject: false,
    });
    expect(validate.stderr).toBe('');
    expect(validate.exitCode).toBe(0);
  });

  it('a new plan has nothing to change: the code now says what is real', async () => {
    const again = await setup.runner.plan(setup.stack, join(work, 'after.tfplan'));
    expect(again.stdout).toContain('No changes.');
    expect(again.hasChanges).toBe(false);
  });
});
