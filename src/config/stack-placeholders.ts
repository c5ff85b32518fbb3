import type { ConfigIssue } from '../domain/errors.js';
import type { Stack } from '../domain/stack.js';
import type { PathSegment } from './issue-path.js';

/**
 * `${stack.name}`, `${stack.dir}` and `${stack.environment}`: per-stack values in a stack's settings, so
 * that one discover rule can give each stack it finds its own state key. Apart from `${VAR}` (the
 * environment, filled in before validation), these are filled in for each stack once it is resolved.
 */
export const STACK_PLACEHOLDERS = ['name', 'dir', 'environment'] as const;
type Placeholder = (typeof STACK_PLACEHOLDERS)[number];

/** The settings that may hold them: what differs from one stack to the next. */
const PER_STACK_KEYS = new Set(['backendConfig', 'vars', 'env', 'workspace', 'varFiles']);

const PLACEHOLDER = /\$\{stack\.([A-Za-z_]+)\}/g;

/** Why `${stack.<name>}` cannot stand at `path`, or undefined when it can. */
export function placeholderProblem(name: string, path: readonly PathSegment[]): string | undefined {
  const known = STACK_PLACEHOLDERS.map((p) => `\${stack.${p}}`).join(', ');
  if (!(STACK_PLACEHOLDERS as readonly string[]).includes(name))
    return `unknown placeholder "\${stack.${name}}": a stack's settings may use ${known}`;
  const [section, index, key] = path;
  if ((section === 'stacks' || section === 'discover') && typeof index === 'number' && PER_STACK_KEYS.has(String(key)))
    return undefined;
  return `"\${stack.${name}}" is a stack's own value: it may stand only in a stack's or discover rule's ${[...PER_STACK_KEYS].join(', ')}`;
}

/** Every string in `value` with the placeholders it holds filled in; one without a value stays as written. */
export function fillPlaceholders<T>(value: T, values: Partial<Record<Placeholder, string>>): T {
  const fill = (node: unknown): unknown => {
    if (typeof node === 'string')
      return node.replace(PLACEHOLDER, (whole, name: string) => values[name as Placeholder] ?? whole);
    if (Array.isArray(node)) return node.map(fill);
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fill(v)]));
    return node;
  };
  return fill(value) as T;
}

/** A placeholder left unfilled: `${stack.environment}` in a stack that has none. */
export function unfilledPlaceholderIssues(stacks: readonly Stack[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const stack of stacks) {
    const settings = {
      backendConfig: stack.backendConfig,
      vars: stack.vars,
      env: stack.env,
      workspace: stack.workspace,
      varFiles: stack.varFiles,
    };
    for (const [key, value] of Object.entries(settings)) {
      const left = JSON.stringify(value ?? null).match(PLACEHOLDER);
      if (!left) continue;
      issues.push({
        path: `${stack.configKey ?? 'stacks'}.${key}`,
        message: `stack "${stack.name}" has no value for ${[...new Set(left)].join(', ')}: it has no environment (set "environment" on the stack or rule, or name stacks <env>/<name>)`,
      });
    }
  }
  return issues;
}
