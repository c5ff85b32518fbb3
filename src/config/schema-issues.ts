import type { z } from 'zod';
import type { ConfigIssue } from '../domain/errors.js';
import { suggest } from '../domain/suggest.js';
import { formatIssuePath, valueAt } from './issue-path.js';

type ZodIssue = z.core.$ZodIssue;

/**
 * zod issues -> config issues people can act on: `stacks[0]: unknown key "shedule"; did you mean
 * "schedule"?`, `stacks[1].dir: required`, `defaults.concurrency: expected number, got string`.
 * Messages never quote the offending value except where the schema itself does (cron, durations), and
 * the caller masks env values there.
 */
export function schemaIssues(issues: readonly ZodIssue[], input: unknown, schema: z.ZodType): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of issues) {
    const path = formatIssuePath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(schema, issue.path);
      for (const key of issue.keys) out.push({ path, message: unknownKeyMessage(key, known) });
    } else {
      out.push({ path, message: describe(issue, valueAt(input, issue.path)) });
    }
  }
  return out;
}

function unknownKeyMessage(key: string, known: string[]): string {
  const hints = suggest(key, known, 1);
  return `unknown key ${JSON.stringify(key)}${hints.length ? `; did you mean ${JSON.stringify(hints[0])}?` : ''}`;
}

function describe(issue: ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return 'required';
      if (issue.expected === 'int' && typeof value === 'number') return 'must be a whole number';
      return `expected ${issue.expected === 'int' ? 'a whole number' : issue.expected}, got ${kindOf(value)}`;
    case 'too_small':
    case 'too_big':
      return boundMessage(issue);
    case 'invalid_format':
      // Our regexes carry their own message; zod's own formats get ours.
      return issue.format === 'url' ? 'must be a URL such as https://example.com' : issue.message;
    case 'invalid_value': {
      const allowed = issue.values.map((v) => JSON.stringify(v));
      const hint = typeof value === 'string' ? suggest(value, issue.values.map(String), 1) : [];
      return `must be ${allowed.length > 1 ? `one of ${allowed.join(', ')}` : allowed[0]}${hint.length ? `; did you mean ${JSON.stringify(hint[0])}?` : ''}`;
    }
    case 'invalid_union': {
      if ('options' in issue && issue.options?.length) {
        if (value === undefined) return 'required';
        return `must be one of ${issue.options.map((o) => JSON.stringify(o)).join(', ')}`;
      }
      const expected = [
        ...new Set(issue.errors.flat().flatMap((e) => (e.code === 'invalid_type' ? [e.expected] : []))),
      ];
      if (value === undefined) return 'required';
      return expected.length ? `expected ${expected.join(' or ')}, got ${kindOf(value)}` : issue.message;
    }
    default:
      return issue.message;
  }
}

/** `must be greater than 0`, `must be at least 8 characters`, `must list at least 1` (zod says "Too small: …"). */
function boundMessage(issue: Extract<ZodIssue, { code: 'too_small' | 'too_big' }>): string {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      if (small && bound === 1) return 'must not be empty';
      return `must be ${small ? 'at least' : 'at most'} ${bound} character${bound === 1 ? '' : 's'}`;
    case 'array':
    case 'set':
      if (small && bound === 1) return 'must not be empty: list at least one';
      return `must list ${small ? 'at least' : 'at most'} ${bound}`;
    default:
      if (inclusive) return `must be ${bound} or ${small ? 'more' : 'less'}`;
      return `must be ${small ? 'greater' : 'less'} than ${bound}`;
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

/** The keys an object schema at `path` accepts, for "did you mean" hints. Unions offer all options' keys. */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let nodes: unknown[] = [schema];
  for (const seg of [...path, undefined]) {
    nodes = nodes.flatMap(unwrap);
    if (seg === undefined) break;
    nodes = nodes.flatMap((node) => {
      const def = defOf(node);
      if (def.type === 'array' && typeof seg === 'number') return [def.element];
      if (def.type === 'object' && typeof seg === 'string') return def.shape?.[seg] ? [def.shape[seg]] : [];
      return [];
    });
  }
  return [...new Set(nodes.flatMap((node) => Object.keys(defOf(node).shape ?? {})))];
}

interface LooseDef {
  type?: string;
  innerType?: unknown;
  in?: unknown;
  element?: unknown;
  options?: unknown[];
  shape?: Record<string, unknown>;
}

function defOf(node: unknown): LooseDef {
  return ((node as { _zod?: { def?: LooseDef } })._zod?.def ?? {}) as LooseDef;
}

/** Strips optional/default/prefault/pipe wrappers and spreads unions into their options. */
function unwrap(node: unknown): unknown[] {
  const def = defOf(node);
  if (def.innerType) return unwrap(def.innerType);
  if (def.type === 'pipe' && def.in) return unwrap(def.in);
  if (def.type === 'union' && def.options) return def.options.flatMap(unwrap);
  return [node];
}
