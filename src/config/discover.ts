import { resolve } from 'node:path';
import { glob } from 'tinyglobby';
import type { ConfigIssue } from '../domain/errors.js';
import { StackEntry, type DiscoverEntry } from './schema.js';
import { stackDirMessage } from '../domain/stack-dir.js';
import { holdsTerraformFiles, inspectStackDir } from './stack-dirs.js';

/** A stack found by a `discover` rule; the rule's settings apply to it. */
export interface DiscoveredStack {
  name: string;
  /** Absolute path. */
  dir: string;
  /** Index of the rule in `discover`. */
  rule: number;
  /**
   * Set when found in a checkout of `source.git`: the dir relative to the source's root (`subpath`),
   * POSIX separators, as `dir` is written for a stack listed under `stacks`. `dir` is then in a checkout
   * that is gone once the config is loaded.
   */
  inSource?: string;
  /** First segment of the name before namePrefix (`prod` for `prod/networking`) when it has several. */
  environment?: string;
}

export interface DiscoveryResult {
  /** Sorted by name. */
  stacks: DiscoveredStack[];
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
  /** The indexes of the rules whose glob matched no stack dir. */
  unmatched: number[];
}

const GLOB_MAGIC = /[*?[\]{}()!+@]/;

/**
 * Finds stack directories: those matching a rule's glob (relative to `baseDir`) that hold a *.tf file,
 * leaving out `exclude` matches (and everything under them) and hidden dirs such as `.terraform`.
 */
export async function discoverStacks(rules: readonly DiscoverEntry[], baseDir: string): Promise<DiscoveryResult> {
  const result: DiscoveryResult = { stacks: [], issues: [], warnings: [], unmatched: [] };
  const byName = new Map<string, DiscoveredStack>();
  for (const [index, rule] of rules.entries()) {
    const found = await discoverRule(rule, index, baseDir, result);
    if (!found.length) {
      result.unmatched.push(index);
      result.warnings.push({
        path: `discover[${index}].glob`,
        message: `${JSON.stringify(rule.glob)} matched no directory holding *.tf files`,
      });
    }
    for (const stack of found) {
      const earlier = byName.get(stack.name);
      if (earlier) {
        result.issues.push({
          path: `discover[${index}]`,
          message: `stack name "${stack.name}" (${stack.dir}) was already found by discover[${earlier.rule}] (${earlier.dir}); use namePrefix or exclude to tell them apart`,
        });
        continue;
      }
      byName.set(stack.name, stack);
    }
  }
  result.stacks = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return result;
}

async function discoverRule(
  rule: DiscoverEntry,
  index: number,
  baseDir: string,
  { issues, warnings }: Pick<DiscoveryResult, 'issues' | 'warnings'>,
): Promise<DiscoveredStack[]> {
  const options = { cwd: baseDir, onlyDirectories: true, expandDirectories: false, dot: false } as const;
  const matches = (await glob([rule.glob], options)).map(trimSlash);
  const excluded = rule.exclude?.length ? (await glob(rule.exclude, options)).map(trimSlash) : [];
  const prefix = staticPrefix(rule.glob);
  const stacks: DiscoveredStack[] = [];
  for (const rel of matches.sort()) {
    if (excluded.some((ex) => rel === ex || rel.startsWith(`${ex}/`))) continue;
    const tail = prefix && rel.startsWith(`${prefix}/`) ? rel.slice(prefix.length + 1) : rel;
    if (tail.split('/').some((seg) => seg.startsWith('.'))) continue;
    const dir = resolve(baseDir, rel);
    const name = `${rule.namePrefix ?? ''}${tail}`;
    if (!(await holdsTerraformFiles(dir))) {
      // Not silently left out: a dir driftgate may not read could well be a stack.
      const problem = await inspectStackDir(dir);
      if (problem?.kind === 'unreadable')
        warnings.push({ path: `discover[${index}].glob`, message: stackDirMessage(name, dir, problem) });
      continue;
    }
    if (!StackEntry.shape.name.safeParse(name).success) {
      issues.push({
        path: `discover[${index}]`,
        message: `directory ${rel} gives the stack name ${JSON.stringify(name)}, which is not valid (letters, digits, ".", "_", "-" and "/"); rename it or exclude it`,
      });
      continue;
    }
    const segments = tail.split('/');
    stacks.push({ name, dir, rule: index, ...(segments.length > 1 ? { environment: segments[0]! } : {}) });
  }
  return stacks;
}

/** `environments/*\/*` -> `environments`; a glob without wildcards -> its parent, so the name is its last dir. */
export function staticPrefix(pattern: string): string {
  const segments = trimSlash(pattern.replace(/^\.\//, '')).split('/');
  const firstMagic = segments.findIndex((seg) => GLOB_MAGIC.test(seg));
  const keep = firstMagic < 0 ? segments.length - 1 : firstMagic;
  return segments.slice(0, keep).join('/');
}

function trimSlash(path: string): string {
  return path.replace(/\/+$/, '');
}
