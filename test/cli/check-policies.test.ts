/**
 * `driftgate check` with inline policies, through the CLI with real terraform: what the rules said is in
 * the report and in `--json`, and a rule that echoes every value it sees still prints no secret.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { runCli } from '../helpers/cli.js';
import { approvers, configYaml, type ConfigPatch } from '../helpers/config-builder.js';
import { applyStack, SENSITIVE_DATABASE, writeStacks } from '../helpers/stack-files.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

const SECRET = 'hunter2-the-terminal-must-never-see-this';

const NETWORK = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.0.0.0/16", tags = { Name = "main" } }
}
resource "terraform_data" "subnet" {
  input = { cidr = "10.0.1.0/24", tags = { Name = "a", CostCenter = "cc-1" } }
}
`;

// terraform_data's attribute is `input`; `output` mirrors it and is unknown after any change.
const POLICIES: ConfigPatch = {
  ...approvers({ senior: ['U0SENIOR'] }),
  policies: {
    rules: [
      {
        name: 'cidr-owned-by-network-team',
        when: '"input.cidr" in resource.changed_attributes',
        message: '{{ resource.address }}: the CIDR belongs to the network team',
        effect: 'deny',
      },
      {
        name: 'cost-tool-tags',
        when: 'size(resource.changed_attributes) > 0 && resource.changed_attributes.all(a, a == "input.tags.CostCenter" || a == "output")',
        effect: 'ignore',
      },
      {
        name: 'new-credentials-need-senior',
        when: 'resource.name == "creds" && "create" in resource.actions',
        message: '{{ resource.address }} is new: {{ resource.after }}',
        effect: 'require_approval',
        count: 1,
        from: ['senior'],
      },
      {
        name: 'echo-plan',
        scope: 'plan',
        when: 'stack.name == "dev/db"',
        message: '{{ terraform.resource_changes.map(r, r.after) }}',
        effect: 'warn',
      },
    ],
  },
};

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let repo: string;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-cli-policies-');
  repo = join(tf.dir, 'repo');
  const stacks = await writeStacks(
    repo,
    { 'dev/network': NETWORK, 'dev/db': SENSITIVE_DATABASE },
    { 'dev/db': { vars: { password: '${DB_PASSWORD}' } } },
  );
  await writeFile(
    join(repo, 'driftgate.yml'),
    configYaml({ dataDir: join(tf.dir, 'data'), log: { level: 'silent' }, stacks }, POLICIES),
  );
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env, DB_PASSWORD: SECRET, TF_VAR_password: SECRET };

  // dev/network is applied, then its VPC CIDR and its subnet's cost tag change out of band; dev/db is new.
  const dir = join(repo, 'dev/network');
  await applyStack(dir, env);
  const cli = { binary: 'terraform', env };
  await editResourceInput(cli, dir, { type: 'terraform_data', name: 'vpc' }, (input) => {
    input.cidr = '10.9.0.0/16';
  });
  await editResourceInput(cli, dir, { type: 'terraform_data', name: 'subnet' }, (input) => {
    (input.tags as Record<string, string>).CostCenter = 'cc-2';
  });
});
afterAll(() => tf.cleanup());

describe('driftgate check with policies', () => {
  it('--json has each stack’s policy object; the report lists denials, approvals, warnings and what was ignored', async () => {
    const json = await runCli(['check', '--all', '--json'], { cwd: repo, env });
    expect(json.code).toBe(2);
    const stacks = Object.fromEntries(JSON.parse(json.stdout).stacks.map((s: { stack: string }) => [s.stack, s]));
    expect(stacks['dev/network'].policy).toEqual({
      denied: true,
      findings: [
        {
          rule: 'cidr-owned-by-network-team',
          effect: 'deny',
          message: 'terraform_data.vpc: the CIDR belongs to the network team',
          address: 'terraform_data.vpc',
        },
      ],
      approvals: [],
      allMinor: false,
      ignored: [{ address: 'terraform_data.subnet', rule: 'cost-tool-tags' }],
      fired: ['cidr-owned-by-network-team', 'cost-tool-tags'],
    });
    const db = stacks['dev/db'].policy;
    expect(db).toMatchObject({
      denied: false,
      approvals: [{ rule: 'new-credentials-need-senior', count: 1, from: ['senior'] }],
      allMinor: false,
      ignored: [],
      fired: ['new-credentials-need-senior', 'echo-plan'],
    });
    expect(
      db.findings.map((f: { rule: string; effect: string; address?: string }) => [f.rule, f.effect, f.address]),
    ).toEqual([
      ['new-credentials-need-senior', 'require_approval', 'terraform_data.creds'],
      ['echo-plan', 'warn', undefined],
    ]);
    // The echoes did show the resource's values, with the password masked.
    expect(db.findings[0].message).toMatch(
      /^terraform_data\.creds is new: .*"password":"\(sensitive value\)".*"user":"app"/,
    );
    expect(db.findings[1].message).toContain('(sensitive value)');

    const human = await runCli(['check', '--all'], { cwd: repo, env });
    expect(human.code).toBe(2);
    expect(human.stdout).toMatch(/dev\/network\s+DRIFTED\s+\S+\s+~2 \(seen before\), denied by policy/);
    const network = section(human.stdout, 'dev/network');
    expect(network).toContain(
      '  DENIED    cidr-owned-by-network-team: terraform_data.vpc: the CIDR belongs to the network team\n',
    );
    expect(network).toContain('  IGNORED   1 change ignored by cost-tool-tags: terraform_data.subnet\n');
    const dbReport = section(human.stdout, 'dev/db');
    expect(dbReport).toMatch(
      /\n {2}APPROVAL {2}new-credentials-need-senior: terraform_data\.creds is new: .*\(sensitive value\).* \(1 from senior\)\n/,
    );
    expect(dbReport).toMatch(/\n {2}WARNING {3}echo-plan: /);
    // Policy lines come before the diff.
    expect(dbReport.indexOf('APPROVAL')).toBeLessThan(dbReport.indexOf('terraform_data.creds will be created'));

    expect(json.stdout + json.stderr + human.stdout + human.stderr).not.toContain(SECRET);
    // The plan terraform wrote really holds the secret (kept as an artifact), so the check above can fail.
    expect(await anyFileContains(join(tf.dir, 'data', 'artifacts'), SECRET)).toBe(true);
  });
});

/** The `=== <stack>: …` part of a report, up to the next one or the summary. */
function section(report: string, stack: string): string {
  const start = report.indexOf(`=== ${stack}:`);
  if (start < 0) throw new Error(`no section for ${stack} in:\n${report}`);
  const next = report.slice(start + 1).search(/\n(=== |\d+ stack\(s\))/);
  return next < 0 ? report.slice(start) : report.slice(start, start + 1 + next + 1);
}

async function anyFileContains(dir: string, text: string): Promise<boolean> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries)
    if (e.isFile() && (await readFile(join(e.parentPath, e.name), 'utf8')).includes(text)) return true;
  return false;
}
