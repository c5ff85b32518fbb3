import type { ConfigIssue } from '../domain/errors.js';
import { formatIssuePath, valueAt, type PathSegment } from './issue-path.js';
import { placeholderProblem } from './stack-placeholders.js';

/**
 * `${VAR}` / `${VAR:-default}` in string scalars of the parsed document, before validation so that an
 * issue can name the exact path. Keys are never interpolated. `$${` is a literal `${`.
 *
 * Env values are often secrets (tokens for a stack's `env`), so nothing here puts a value into an issue;
 * the returned substitutions let the caller mask values that later validation messages might quote.
 * `${stack.name}` and its kind are not the environment's: they are kept for resolution, per stack.
 */

export interface Substitution {
  path: PathSegment[];
  name: string;
  /** The value taken from the environment (defaults are not recorded: they are in the file already). */
  value: string;
  /** The scalar as written, e.g. `${SCHEDULE}`: what to show instead of the resolved string. */
  raw: string;
}

export interface InterpolationResult {
  value: unknown;
  issues: ConfigIssue[];
  /** Paths whose scalar could not be interpolated; validation issues there would only repeat ours. */
  failedPaths: PathSegment[][];
  substitutions: Substitution[];
}

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STACK_PLACEHOLDER = /^stack\.([A-Za-z0-9_.-]*)$/;

export function interpolate(document: unknown, env: Record<string, string | undefined>): InterpolationResult {
  const result: InterpolationResult = { value: undefined, issues: [], failedPaths: [], substitutions: [] };
  const walk = (node: unknown, path: PathSegment[]): unknown => {
    if (typeof node === 'string') return interpolateString(node, path, env, result);
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(node)) {
        // defineProperty: a `__proto__` key stays an own key (and fails validation) instead of a prototype.
        Object.defineProperty(out, key, {
          value: walk(item, [...path, key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return node;
  };
  result.value = walk(document, []);
  return result;
}

function interpolateString(
  text: string,
  path: PathSegment[],
  env: Record<string, string | undefined>,
  result: InterpolationResult,
): string {
  if (!text.includes('$')) return text;
  let out = '';
  let failed = false;
  const fail = (message: string) => {
    result.issues.push({ path: formatIssuePath(path), message });
    failed = true;
  };
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      out += '${';
      i += 3;
      continue;
    }
    if (!text.startsWith('${', i)) {
      out += text[i];
      i += 1;
      continue;
    }
    const end = text.indexOf('}', i + 2);
    if (end < 0) {
      fail('unterminated "${" (write "$${" for a literal "${")');
      break;
    }
    const inner = text.slice(i + 2, end);
    const sep = inner.indexOf(':-');
    const name = sep < 0 ? inner : inner.slice(0, sep);
    i = end + 1;
    const placeholder = STACK_PLACEHOLDER.exec(inner);
    if (placeholder) {
      // Filled in per stack at resolution (stack-placeholders.ts); here only its place is checked.
      const problem = placeholderProblem(placeholder[1]!, path);
      if (problem) fail(problem);
      else out += `\${${inner}}`;
      continue;
    }
    if (!VAR_NAME.test(name)) {
      fail(
        `invalid variable reference "\${${inner}}": names use letters, digits and "_" (write "$\${" for a literal "\${")`,
      );
      continue;
    }
    const value = env[name];
    if (sep >= 0 && (value === undefined || value === '')) {
      out += inner.slice(sep + 2);
    } else if (value === undefined) {
      fail(`environment variable "${name}" is not set`);
    } else {
      out += value;
      result.substitutions.push({ path, name, value, raw: text });
    }
  }
  if (failed) {
    result.failedPaths.push(path);
    return text;
  }
  return out;
}

/**
 * Masks env values that validation messages quote (e.g. `invalid cron expression "<value>"`). At an
 * interpolated path the quoted resolved scalar becomes the scalar as written; elsewhere any value of 4+
 * characters is replaced by its variable reference (shorter ones would mangle ordinary words).
 */
export function maskSubstitutions(
  issues: ConfigIssue[],
  substitutions: Substitution[],
  resolved: unknown,
): ConfigIssue[] {
  if (!substitutions.length) return issues;
  return issues.map((issue) => {
    let message = issue.message;
    for (const sub of substitutions) {
      if (formatIssuePath(sub.path) === issue.path) {
        const scalar = valueAt(resolved, sub.path);
        if (typeof scalar === 'string') message = message.split(JSON.stringify(scalar)).join(JSON.stringify(sub.raw));
      }
      if (sub.value.length >= 4) message = message.split(sub.value).join(`\${${sub.name}}`);
    }
    return message === issue.message ? issue : { ...issue, message };
  });
}
