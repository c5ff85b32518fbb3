import { ConfigError } from '../../domain/errors.js';
import type { Stack } from '../../domain/stack.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function checkNames(stack: Stack, field: 'vars' | 'backendConfig', names: string[]): void {
  const bad = names.filter((n) => !IDENTIFIER.test(n));
  if (bad.length) {
    // The key as validate writes keys: stacks[0].vars["bad name"] (a bad name is never a bare identifier).
    const at = (n: string) => `${stack.configKey ?? `stack ${stack.name}`}.${field}[${JSON.stringify(n)}]`;
    throw new ConfigError(bad.map((n) => ({ path: at(n), message: 'not a valid terraform identifier' })));
  }
}

/** A stack var as terraform reads it from TF_VAR_*: lists and maps as JSON, which HCL accepts. */
export function varEnvValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** TF_VAR_<name> for each stack var; secrets travel in the environment, never in argv. */
export function varsToEnv(stack: Stack): Record<string, string> {
  checkNames(stack, 'vars', Object.keys(stack.vars));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(stack.vars)) {
    const text = varEnvValue(value);
    if (text !== undefined) env[`TF_VAR_${name}`] = text;
  }
  return env;
}

export interface ChildEnvOptions {
  base: Record<string, string | undefined>;
  stack: Stack;
  pluginCacheDir: string;
  /** Set TF_WORKSPACE; false for init and `workspace select`, which refuse to run under it. */
  withWorkspace: boolean;
}

/** base env < stack env < what driftgate controls (vars, workspace, plugin cache). */
export function buildChildEnv({ base, stack, pluginCacheDir, withWorkspace }: ChildEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...base, ...stack.env })) if (v !== undefined) env[k] = v;
  Object.assign(env, varsToEnv(stack), { TF_PLUGIN_CACHE_DIR: pluginCacheDir, TF_INPUT: '0' });
  delete env.TF_WORKSPACE;
  // Always explicit: `.terraform/environment` may still name a workspace the stack used before.
  if (withWorkspace) env.TF_WORKSPACE = stack.workspace ?? 'default';
  return env;
}

/** An HCL string literal; `${` and `%{` are escaped because backend files allow no templates. */
function hclString(value: string): string {
  return JSON.stringify(value)
    .replace(/\$\{/g, () => '$${')
    .replace(/%\{/g, () => '%%{');
}

/** The contents of a `-backend-config=<file>` file (HCL attributes). */
export function backendConfigFile(stack: Stack): string {
  const entries = Object.entries(stack.backendConfig);
  checkNames(
    stack,
    'backendConfig',
    entries.map(([k]) => k),
  );
  return entries.map(([k, v]) => `${k} = ${typeof v === 'string' ? hclString(v) : String(v)}\n`).join('');
}
