/**
 * A provider version change as a drift cause, with the real AWS provider on the local S3 server: a test
 * mirror offers the machine's one AWS provider binary as 5.99.0, then also as 5.100.0 (the same bytes under
 * a second version, so the upgrade itself changes nothing real). The stack is checked clean at 5.99.0; then
 * its lock file is upgraded to 5.100.0 and an object changed out of band. The drifted object's cause names
 * the provider's versions, in `check --json`, in the policy input (a rule that makes provider-only diffs
 * minor in dev fires) and in the alert.
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import {
  changeOutOfBand,
  s3ObjectStackHcl,
  s3StackSettings,
  s3TestClient,
  type S3ObjectSpec,
} from '../helpers/s3-object-stack.js';
import { startLocalS3, type LocalS3 } from '../helpers/s3rver.js';
import { storedAlertText } from '../helpers/stored-alert.js';
import { HAS_AWS_MIRROR, PROVIDER_MIRROR, makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

const AWS = 'registry.terraform.io/hashicorp/aws';
const REAL_VERSION = '5.100.0';
const BUCKET = 'site';
const OBJECTS: S3ObjectSpec[] = [
  { name: 'index', key: 'index.html', content: '<h1>hi</h1>', contentType: 'text/plain' },
  { name: 'robots', key: 'robots.txt', content: 'User-agent: *', contentType: 'text/plain' },
];

let tf: TestTerraformEnv;
let s3: LocalS3;
let client: S3Client;
let env: Record<string, string | undefined>;
let file: string;
let mirror: string;
const stackDir = () => join(tf.dir, 'site');

/** The machine's AWS provider binary offered in the test mirror as `version`. */
async function offer(version: string): Promise<void> {
  const dir = join(mirror, AWS, version, 'linux_amd64');
  await mkdir(dir, { recursive: true });
  const real = join(PROVIDER_MIRROR, AWS, REAL_VERSION, 'linux_amd64', `terraform-provider-aws_v${REAL_VERSION}_x5`);
  await symlink(real, join(dir, `terraform-provider-aws_v${version}_x5`));
}

beforeAll(async () => {
  if (!HAS_AWS_MIRROR) return;
  tf = await makeTerraformEnv('driftgate-causes-provider-');
  mirror = join(tf.dir, 'mirror');
  await offer('5.99.0');
  const cliConfig = join(tf.dir, 'terraformrc-two-versions');
  await writeFile(
    cliConfig,
    `disable_checkpoint = true\nprovider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(mirror)}\n    include = ["registry.terraform.io/hashicorp/*"]\n  }\n}\n`,
  );
  s3 = await startLocalS3([BUCKET]);
  client = s3TestClient(s3);
  const settings = s3StackSettings(s3);
  env = { PATH: process.env.PATH, HOME: tf.dir, ...tf.env, TF_CLI_CONFIG_FILE: cliConfig };
  await mkdir(stackDir());
  await writeFile(join(stackDir(), 'main.tf'), s3ObjectStackHcl({ bucket: BUCKET, objects: OBJECTS }));
  file = join(tf.dir, 'driftgate.yml');
  await writeFile(
    file,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      log: { level: 'silent' },
      stacks: [stackEntry('dev/site', stackDir(), { ...settings, environment: 'dev' })],
      policies: {
        rules: [
          {
            name: 'provider-only-diffs-are-minor-in-dev',
            when: 'stack.environment == "dev" && drift.causes.exists(c, c.resource == resource.address) && drift.causes.all(c, c.resource != resource.address || c.kind == "provider_version")',
            effect: 'minor',
          },
        ],
      },
    }),
  );
  const tfEnv = { ...env, ...settings.env, TF_VAR_s3_endpoint: s3.endpoint };
  const inStack = { cwd: stackDir(), env: tfEnv, extendEnv: false };
  await execa('terraform', ['init', '-input=false', '-no-color'], inStack);
  await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], inStack);
}, 300_000);
afterAll(async () => {
  client?.destroy();
  await s3?.close();
  await tf?.cleanup();
});

describe.skipIf(!HAS_AWS_MIRROR)('a provider version change as a drift cause', () => {
  it('names the provider that moved since the last clean check on the drifted resource of that provider', async () => {
    const check = async () => {
      const result = await runCli(['check', 'dev/site', '--json', '--config', file], { cwd: tf.dir, env });
      return { code: result.code, report: JSON.parse(result.stdout).stacks[0] };
    };
    expect((await check()).code).toBe(0);

    // The upgrade a person commits (`terraform init -upgrade`), and a change in the console.
    await offer('5.100.0');
    await rm(join(stackDir(), '.terraform.lock.hcl'));
    await changeOutOfBand(client, BUCKET, 'index.html', { contentType: 'text/html' });

    const { code, report } = await check();
    expect(code).toBe(2);
    expect(report.drift.map((d: { address: string }) => d.address)).toEqual(['aws_s3_object.index']);
    const text = `the hashicorp/aws provider went from 5.99.0 to 5.100.0 since the last clean check: this diff may be the provider's, not a person's`;
    expect(report.drift[0].causes).toEqual([
      { kind: 'provider_version', provider: AWS, from: '5.99.0', to: '5.100.0', since: 'clean_check', text },
    ]);
    expect(report.policy).toMatchObject({ allMinor: true });
    expect(await storedAlertText(report.runId, { config: file, cwd: tf.dir, env })).toContain(text);
    // Each AWS provider start takes seconds, more on a busy machine.
  }, 300_000);
});
