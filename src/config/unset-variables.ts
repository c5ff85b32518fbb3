import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scanHclBody } from '../domain/hcl-scan.js';
import type { Stack } from '../domain/stack.js';
import { type RequiredVariable, readRootModule } from './root-module.js';

const AUTO_VAR_FILE = /^(terraform\.tfvars|.*\.auto\.tfvars)(\.json)?$/;

/** The variable names a tfvars file (HCL or JSON) sets; none for a file that cannot be read or parsed. */
async function namesIn(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  if (file.endsWith('.json')) {
    try {
      const value: unknown = JSON.parse(text);
      return value && typeof value === 'object' ? Object.keys(value) : [];
    } catch {
      return [];
    }
  }
  return scanHclBody(text).flatMap((item) => (item.kind === 'attribute' ? [item.name] : []));
}

/**
 * The root module's variables without a default that nothing gives a value, as terraform would run for
 * driftgate: the stack's `vars`, its `varFiles`, the dir's auto-loaded tfvars files, and TF_VAR_* from the
 * stack's `env` or driftgate's own environment (which terraform inherits).
 */
export async function unsetVariables(
  stack: Pick<Stack, 'dir' | 'vars' | 'varFiles' | 'env'>,
  env: Record<string, string | undefined>,
): Promise<RequiredVariable[]> {
  const { requiredVariables } = await readRootModule(stack.dir);
  if (requiredVariables.length === 0) return [];
  const entries = await readdir(stack.dir).catch(() => [] as string[]);
  const files = [...entries.filter((f) => AUTO_VAR_FILE.test(f)).map((f) => join(stack.dir, f)), ...stack.varFiles];
  const given = new Set([...Object.keys(stack.vars), ...(await Promise.all(files.map(namesIn))).flat()]);
  const fromEnv = (name: string) => env[`TF_VAR_${name}`] !== undefined || stack.env[`TF_VAR_${name}`] !== undefined;
  return requiredVariables.filter((v) => !given.has(v.name) && !fromEnv(v.name));
}
