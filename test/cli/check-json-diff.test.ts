/**
 * `driftgate check` through the built CLI with real terraform: a terraform_data stack whose input holds a
 * jsonencode()'d IAM policy, changed in the state as a console edit would change it. The report shows
 * what changed inside the policy, not two walls of text; a policy built from a sensitive value shows
 * nothing of itself. (On the code before structural diffs, the report had one long string change.)
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';
import { applyStack, writeStacks } from '../helpers/stack-files.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cli-json-secret-9f8e7d';

const STACK = `
variable "secret_arn" {
  type      = string
  sensitive = true
}
resource "terraform_data" "app_logs" {
  input = {
    name = "app-logs"
    policy = jsonencode({
      Version = "2012-10-17"
      Statement = [
        { Sid = "ReadLogs", Effect = "Allow", Action = ["logs:GetLogEvents"], Resource = "*" },
        { Sid = "PutMetrics", Effect = "Allow", Action = "cloudwatch:PutMetricData", Resource = "*" },
      ]
    })
  }
}
resource "terraform_data" "read_secret" {
  input = {
    policy = jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Sid = "ReadSecret", Effect = "Allow", Action = "secretsmanager:GetSecretValue", Resource = var.secret_arn }]
    })
  }
}
`;

let tf: TestTerraformEnv;
let env: Record<string, string>;
let repo: string;

const check = (...args: string[]) =>
  execa('node', [BIN, 'check', '--all', ...args], { cwd: repo, env, extendEnv: false, reject: false });

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-cli-json-diff-');
  repo = join(tf.dir, 'repo');
  const stacks = await writeStacks(repo, { 'prod/iam': STACK });
  await writeFile(
    join(repo, 'driftgate.yml'),
    configYaml({ dataDir: join(tf.dir, 'data'), log: { level: 'silent' }, stacks }),
  );
  env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tf.dir, ...tf.env, TF_VAR_secret_arn: SECRET_ARN };
  const dir = join(repo, 'prod/iam');
  await applyStack(dir, env);
  const cli = { binary: 'terraform', env };
  // A console edit: a statement added, an action added to ReadLogs, the document written in another key order.
  await editResourceInput(cli, dir, { type: 'terraform_data', name: 'app_logs' }, (input) => {
    input.policy = JSON.stringify({
      Statement: [
        { Resource: '*', Action: ['logs:GetLogEvents', 'logs:DeleteLogGroup'], Effect: 'Allow', Sid: 'ReadLogs' },
        { Sid: 'PutMetrics', Effect: 'Allow', Action: ['cloudwatch:PutMetricData'], Resource: ['*'] },
        { Sid: 'ConsoleAdded', Effect: 'Allow', Action: 's3:*', Resource: '*' },
      ],
      Version: '2012-10-17',
    });
  });
  await editResourceInput(cli, dir, { type: 'terraform_data', name: 'read_secret' }, (input) => {
    input.policy = String(input.policy).replace('secretsmanager:GetSecretValue', 'secretsmanager:*');
  });
}, 120_000);
afterAll(() => tf.cleanup());

describe.skipIf(!HAS_BUILD)(
  `check shows JSON-encoded attributes structurally (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`,
  () => {
    it('the report lists the statement and the action the edit added; the sensitive policy shows nothing', async () => {
      const human = await check();
      expect(human.exitCode, human.stderr).toBe(2);
      expect(human.stdout).toContain(
        [
          'input.policy = (JSON) 2 changes inside:',
          '          - Statement[Sid="ReadLogs"].Action = "logs:DeleteLogGroup"',
          '          - Statement[Sid="ConsoleAdded"] = {"Action":["s3:*"],"Effect":"Allow","Resource":["*"],"Sid":"ConsoleAdded"}',
        ].join('\n'),
      );
      // PutMetrics, written with lists where the code has strings, is no change.
      expect(human.stdout).not.toContain('Statement[Sid="PutMetrics"]');
      expect(human.stdout).toMatch(/~ input\.policy\s+= \(sensitive value\)/);
      expect(human.stdout).not.toContain('cli-json-secret');

      const json = await check('--json');
      const changes = JSON.parse(json.stdout).stacks[0].changes as {
        address: string;
        attributes: { path: string; json?: { changes: { path: string }[]; omitted: number } }[];
      }[];
      const policy = changes
        .find((c) => c.address === 'terraform_data.app_logs')!
        .attributes.find((a) => a.path === 'input.policy')!;
      expect(policy.json!.changes.map((c) => c.path)).toEqual([
        'Statement[Sid="ReadLogs"].Action',
        'Statement[Sid="ConsoleAdded"]',
      ]);
      expect(json.stdout).not.toContain('cli-json-secret');
    });
  },
);
