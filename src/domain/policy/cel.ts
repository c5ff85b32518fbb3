/**
 * The CEL side of policies: one environment per rule scope, expressions compiled and type-checked
 * once, errors turned into text with a position. Variables are declared (`dyn`), not left open, so a
 * typo such as `resouce.type` or `resource` in a plan-scope rule fails when the config loads.
 */
import { Environment } from '@marcbachmann/cel-js';
import type { PolicyRule } from './model.js';

export type Evaluator = (context: Record<string, unknown>) => unknown;

const PLAN_VARIABLES = ['terraform', 'stack', 'run', 'drift'] as const;

function environment(variables: readonly string[]): Environment {
  const env = new Environment();
  for (const name of variables) env.registerVariable(name, 'dyn');
  return env;
}

const ENVIRONMENTS: Record<PolicyRule['scope'], Environment> = {
  plan: environment(PLAN_VARIABLES),
  resource: environment([...PLAN_VARIABLES, 'resource']),
};

/** What the library's errors carry beyond Error; read defensively, they are another package's shape. */
interface CelErrorShape {
  summary?: unknown;
  range?: { start?: unknown };
}

export function errorSummary(err: unknown): string {
  const summary = (err as CelErrorShape | null)?.summary;
  if (typeof summary === 'string') return summary;
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}

function errorStart(err: unknown): number | undefined {
  const start = (err as CelErrorShape | null)?.range?.start;
  return typeof start === 'number' ? start : undefined;
}

/** `Unexpected token: EOF at line 1, column 17`, then the line with a caret under the column. */
export function describeAt(text: string, offset: number | undefined, summary: string): string {
  if (offset === undefined) return summary;
  const before = text.slice(0, offset).split('\n');
  const line = before.length;
  const column = before.at(-1)!.length + 1;
  const source = text.split('\n')[line - 1] ?? '';
  return `${summary} at line ${line}, column ${column}\n    ${source}\n    ${' '.repeat(column - 1)}^`;
}

export type CompiledExpression = { ok: true; evaluate: Evaluator; type: string } | { ok: false; message: string };

/** Where an expression sits in its field: all of `when`, or a `{{ }}` part of a message from `offset`. */
export interface SourceSpan {
  text: string;
  offset: number;
}

/** Parses and type-checks `source`; a position in an error names the place in the field as written. */
export function compileExpression(
  scope: PolicyRule['scope'],
  source: string,
  span: SourceSpan = { text: source, offset: 0 },
): CompiledExpression {
  const fail = (err: unknown): CompiledExpression => {
    const start = errorStart(err);
    return {
      ok: false,
      message: describeAt(span.text, start === undefined ? undefined : span.offset + start, errorSummary(err)),
    };
  };
  try {
    const parsed = ENVIRONMENTS[scope].parse(source);
    const checked = parsed.check();
    if (!checked.valid) return fail(checked.error);
    return { ok: true, evaluate: parsed as Evaluator, type: checked.type ?? 'dyn' };
  } catch (err) {
    return fail(err);
  }
}

/** A CEL result as text in a message: strings as they are, numbers without `n`, lists and maps as JSON. */
export function formatCelValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'object') return String(value);
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return Number(v);
    if (v instanceof Map) return Object.fromEntries(v);
    if (v instanceof Set) return [...v];
    return v;
  });
}
