/**
 * The benchmark's 10,000-resource plan: every resource is updated, and what changes is a jsonencode()'d
 * IAM policy (an action and a statement added, the rest written another way), so the structural JSON diff
 * runs on every change: the worst case. The prior state is written directly (one resource applied for
 * its shape, then cloned), as applying 10,000 resources would take longer than everything else together.
 * terraform_data reports no drift (its refresh returns its state), so refresh's findings are added to
 * the plan JSON afterwards: a console edit of the policy on every 10th resource, and normalisation
 * noise (an empty tag read back) on every 10th + 5.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The policy as AWS returns it and the state holds it: its own key order, single items as strings. */
export function statePolicy(i: number, consoleEdit = false): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'Read',
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:ListBucket'],
        Resource: [`arn:aws:s3:::bench-${i}`, `arn:aws:s3:::bench-${i}/*`],
      },
      { Sid: 'Write', Effect: 'Allow', Action: 's3:PutObject', Resource: `arn:aws:s3:::bench-${i}/uploads/*` },
      ...(consoleEdit ? [{ Sid: 'ConsoleAdded', Effect: 'Allow', Action: 's3:*', Resource: '*' }] : []),
    ],
  });
}

/** The code: one action more for Read, a statement more, Write written with lists (no change). */
export function stackSource(count: number): string {
  return `
variable "token" {
  type      = string
  sensitive = true
}
variable "n" {
  type    = number
  default = ${count}
}
resource "terraform_data" "item" {
  count = var.n
  input = {
    name  = "item-\${count.index}"
    tags  = { team = "bench", index = tostring(count.index) }
    ports = [80, 443]
    token = var.token
    policy = jsonencode({
      Version = "2012-10-17"
      Statement = [
        {
          Sid      = "Read"
          Effect   = "Allow"
          Action   = ["s3:GetObject", "s3:ListBucket", "s3:GetObjectVersion"]
          Resource = ["arn:aws:s3:::bench-\${count.index}", "arn:aws:s3:::bench-\${count.index}/*"]
        },
        { Sid = "Write", Effect = "Allow", Action = ["s3:PutObject"], Resource = ["arn:aws:s3:::bench-\${count.index}/uploads/*"] },
        { Sid = "Logs", Effect = "Allow", Action = "logs:PutLogEvents", Resource = "*" },
      ]
    })
  }
}
`;
}

interface StateInstance {
  index_key?: number;
  attributes: Record<string, unknown> & { id: string; input: { value: Record<string, unknown> } };
  [key: string]: unknown;
}

/**
 * Rewrites `dir`'s local state, which holds one applied instance, as `count` instances holding the
 * state's policy (statePolicy): the next plan updates every one of them.
 */
export async function cloneState(dir: string, count: number, token: string): Promise<void> {
  const file = join(dir, 'terraform.tfstate');
  const state = JSON.parse(await readFile(file, 'utf8')) as {
    serial: number;
    resources: { instances: StateInstance[] }[];
  };
  const resource = state.resources[0]!;
  const template = resource.instances[0]!;
  resource.instances = Array.from({ length: count }, (_, i) => {
    const value = {
      name: `item-${i}`,
      tags: { team: 'bench', index: String(i) },
      ports: [80, 443],
      token,
      policy: statePolicy(i),
    };
    const attributes = {
      ...template.attributes,
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      input: { ...template.attributes.input, value },
      output: { ...template.attributes.input, value },
    };
    return { ...template, index_key: i, attributes };
  });
  state.serial += 1;
  await writeFile(file, JSON.stringify(state));
}

interface ChangeJson {
  address: string;
  change: { before: { input: Record<string, unknown> }; before_sensitive: unknown };
  [key: string]: unknown;
}

/** The plan JSON with refresh's findings added (see the top of this file); returns the drift count. */
export function withDrift(planJson: string): { text: string; drifted: number } {
  const plan = JSON.parse(planJson) as { resource_changes: ChangeJson[]; resource_drift?: unknown[] };
  const drift: unknown[] = [];
  plan.resource_changes.forEach((rc, i) => {
    if (i % 10 !== 0 && i % 10 !== 5) return;
    const recorded = structuredClone(rc.change.before);
    if (i % 10 === 0) recorded.input.policy = statePolicy(i, true);
    else recorded.input.tags = { ...(recorded.input.tags as object), note: '' };
    drift.push({
      ...rc,
      change: {
        actions: ['update'],
        before: recorded,
        after: rc.change.before,
        after_unknown: {},
        before_sensitive: rc.change.before_sensitive,
        after_sensitive: rc.change.before_sensitive,
      },
    });
  });
  plan.resource_drift = drift;
  return { text: JSON.stringify(plan), drifted: drift.length };
}
