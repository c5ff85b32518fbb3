import { LineCounter, parseDocument, type YAMLError } from 'yaml';
import type { ConfigIssue } from '../domain/errors.js';

export interface ParsedYaml {
  /** The document as plain data; `{}` for an empty file, undefined when it could not be parsed. */
  value: unknown;
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
}

/**
 * YAML text -> plain data. Syntax errors carry line:column. Alias expansion is capped by `yaml`'s own
 * `maxAliasCount`, so a "billion laughs" file fails here instead of eating memory. Unknown tags such as
 * `!!js/function` are never executed: `yaml` reads them as plain strings, and we warn.
 */
export function parseYaml(text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const lines = text.split('\n');
  const issues = doc.errors.map((e) => toIssue(e, 'YAML syntax error', lines));
  const warnings = doc.warnings.map((e) => toIssue(e, 'YAML warning', lines));
  if (issues.length) return { value: undefined, issues, warnings };
  try {
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    return { value: value ?? {}, issues, warnings };
  } catch (err) {
    // toJS throws on alias bombs and on aliases to missing anchors.
    const message = err instanceof Error ? err.message : String(err);
    return { value: undefined, issues: [{ path: '', message: `YAML error: ${message}` }], warnings };
  }
}

function toIssue(err: YAMLError, label: string, lines: readonly string[]): ConfigIssue {
  const where = err.linePos?.[0];
  const what =
    err.code === 'MULTIPLE_DOCS'
      ? 'the file holds several YAML documents ("---"); driftgate reads exactly one'
      : err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  if (!where) return { path: '', message: `${label}: ${what}` };
  // `yaml` puts a wrongly indented line's error at its column 1: the key where it really starts says more.
  const indent = where.col === 1 ? (/^ +/.exec(lines[where.line - 1] ?? '')?.[0].length ?? 0) : 0;
  const hint = indent ? ` (is line ${where.line} indented like the lines above it?)` : '';
  return { path: '', message: `${label} at line ${where.line}, column ${where.col + indent}: ${what}${hint}` };
}
