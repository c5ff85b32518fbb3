/**
 * Which files a remediation may commit: the `.tf` files directly in the stack's directory, which is all
 * codifyDrift reads and rewrites. With workers the file list comes from a process that ran the stack's
 * terraform (a module's provisioner can write it), and the control plane's GitHub token would commit
 * whatever it names: a workflow under `.github/` runs with the repository's secrets, another stack's code
 * is another team's. So every path is held against the stack's directory as the control plane's config
 * knows it, never as the answer says. Pure.
 */
import { posix } from 'node:path';
import type { RemediationPlan } from './plan-remediation.js';
import { hasControlCharacter, shownName } from './worker-text.js';

/** A path of a remediation that may not be committed, as it may be shown (masked, cut), and why. */
export interface RefusedPath {
  path: string;
  why: string;
}

/** Characters of a refused path shown in a message, the audit or a log: enough to recognise it. */
const MAX_SHOWN = 80;
const shownPath = (path: string) => shownName(path, MAX_SHOWN);

/** `stacks/prod/app` from `stacks/prod/app/` or `./stacks/prod/app`; '' for the repository's root. */
function directoryOf(stackPath: string): string {
  const dir = posix.normalize(stackPath.replaceAll('\\', '/')).replace(/\/+$/, '');
  return dir === '.' ? '' : dir;
}

/** Why `path` may not be committed for a stack in `dir`, or undefined when it may. */
function refusal(path: string, dir: string): string | undefined {
  if (path === '') return 'an empty path';
  if (hasControlCharacter(path)) return 'a control character in the path';
  if (path.includes('\\')) return 'a backslash in the path';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'an absolute path';
  const segments = path.split('/');
  if (segments.includes('')) return 'an empty segment (`//` or a trailing `/`)';
  if (segments.some((s) => s === '.' || s === '..')) return 'a `.` or `..` segment';
  // Case-insensitive: a checkout on a case-insensitive file system reads `.GitHub` as `.github`.
  if (segments.some((s) => ['.git', '.github'].includes(s.toLowerCase()))) return 'under `.git/` or `.github/`';
  const name = segments.at(-1)!;
  if (posix.join(dir, name) !== path) return `outside the stack's directory ${dir === '' ? '(the root)' : dir}`;
  if (!name.endsWith('.tf')) return 'not a `.tf` file';
  return undefined;
}

/**
 * The paths of a remediation that may not be committed for a stack whose directory in the repository is
 * `stackPath` (its `git.path`): its files' and the files its edits name. Empty when every one may. A file
 * named twice is refused too: which of its two texts would be committed is not for the answer to leave open.
 */
export function refusedRemediationPaths(
  plan: Pick<RemediationPlan, 'files' | 'edits'>,
  stackPath: string,
): RefusedPath[] {
  const dir = directoryOf(stackPath);
  const refused: RefusedPath[] = [];
  const seen = new Set<string>();
  for (const { path } of plan.files) {
    const why = refusal(path, dir) ?? (seen.has(path) ? 'named twice' : undefined);
    seen.add(path);
    if (why) refused.push({ path: shownPath(path), why });
  }
  for (const file of new Set(plan.edits.map((e) => e.file))) {
    const why = seen.has(file) ? undefined : refusal(file, dir);
    if (why) refused.push({ path: shownPath(file), why });
  }
  return refused;
}
