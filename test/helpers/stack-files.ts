import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { execa } from 'execa';
import { stackEntry, type StackInput, type StackSettings } from './config-builder.js';

/** A stack whose variable is sensitive: plan JSON holds its value in clear, driftgate must mask it. */
export const SENSITIVE_DATABASE = `
variable "password" {
  type      = string
  sensitive = true
}
resource "terraform_data" "creds" {
  input = { user = "app", password = var.password }
}
`;

/** A stack whose apply runs `script` (sh) in a `local-exec`: a module attacking what runs it. */
export function localExecStack(script: string): string {
  return `
resource "terraform_data" "attack" {
  input = "x"
  provisioner "local-exec" {
    command = <<-EOT
${script.replaceAll('${', '$${')}
    EOT
  }
}
`;
}

/**
 * Writes each stack's main.tf below `root` (undefined: the dir is not created) and returns its `stacks:`
 * entries, each with its `settings`. The stacks are never applied, and tests use their first plan as the
 * change to approve: `emptyState: plan` (unless a test's settings say otherwise), not the no-state finding.
 */
export async function writeStacks(
  root: string,
  stacks: Record<string, string | undefined>,
  settings: Record<string, StackSettings> = {},
): Promise<StackInput[]> {
  const entries: StackInput[] = [];
  for (const [name, hcl] of Object.entries(stacks)) {
    const dir = join(root, name);
    if (hcl !== undefined) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'main.tf'), hcl);
    }
    entries.push(stackEntry(name, dir, { emptyState: 'plan', ...settings[name] }));
  }
  return entries;
}

/** `terraform init` and `apply` in a stack dir, as its owner would before driftgate first checks it. */
export async function applyStack(dir: string, env: Record<string, string | undefined>): Promise<void> {
  await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: dir, env, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
    cwd: dir,
    env,
    extendEnv: false,
  });
}

/** A stream that keeps every line written to it, for asserting what reached the logs. */
export function lineSink(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, stream };
}
