import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';

/** A directory holding a root module, as `driftgate init` found it. */
export interface StackDir {
  /** Relative to the scanned dir, `/`-separated; `''` for the scanned dir itself. */
  rel: string;
  /** `backend "s3" { … }` in a `terraform` block; absent for local state. */
  backend?: { type: string; partial: boolean };
  /** Non-default workspaces seen in `terraform.tfstate.d/` or selected in `.terraform/environment`. */
  workspaces: string[];
  /** `*.tfvars` files in the dir (names only). */
  varFiles: string[];
  /** Variables without a default that no auto-loaded tfvars file sets: a plan needs a value for each. */
  requiredVars: string[];
}

export interface RepositoryScan {
  stacks: StackDir[];
  /** Dirs holding *.tf that other modules call (`source = "../x"`) or that sit under `modules/`. */
  modules: string[];
  /** Dirs with a terragrunt.hcl: driftgate runs terraform itself, not terragrunt. */
  terragrunt: string[];
}

const MODULE_FILE = /\.(tf|tofu)(\.json)?$/;
/** Not stacks, and too big to walk: vendored code, caches, state of workspaces. */
const SKIP_DIRS = new Set(['node_modules', 'vendor', 'terraform.tfstate.d', 'dist', 'build']);
const MODULE_SEGMENTS = new Set(['modules', 'module']);
const MAX_DEPTH = 8;
const MAX_DIRS = 20_000;

const BACKEND = /\bbackend\s+"([A-Za-z0-9_-]+)"\s*\{([^}]*)\}/;
const LOCAL_SOURCE = /\bsource\s*=\s*"(\.{1,2}\/[^"]*)"/g;

/**
 * Walks `root` for directories holding Terraform/OpenTofu files and tells root modules (stacks) from the
 * modules they call. Reads only file names and the *.tf text; hidden dirs (`.git`, `.terraform`) are skipped.
 */
export async function scanRepository(root: string): Promise<RepositoryScan> {
  const found: { rel: string; texts: string[]; entries: string[]; workspaces: string[]; requiredVars: string[] }[] = [];
  const called = new Set<string>();
  const terragrunt: string[] = [];
  let visited = 0;

  async function walk(rel: string, depth: number): Promise<void> {
    if (visited++ > MAX_DIRS) return;
    const dir = join(root, rel);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const files = entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name);
    if (files.includes('terragrunt.hcl')) terragrunt.push(rel);
    const tf = files.filter((f) => MODULE_FILE.test(f)).sort();
    if (tf.length) {
      const texts = await Promise.all(tf.map((f) => readFile(join(dir, f), 'utf8').catch(() => '')));
      for (const text of texts) {
        for (const m of text.matchAll(LOCAL_SOURCE)) called.add(posix.normalize(posix.join(rel, m[1]!)));
      }
      const autoVars = files.filter((f) => f === 'terraform.tfvars' || /\.auto\.tfvars$/.test(f));
      const assigned = (await Promise.all(autoVars.map((f) => readFile(join(dir, f), 'utf8').catch(() => '')))).join(
        '\n',
      );
      found.push({
        rel,
        texts,
        entries: files,
        workspaces: await workspacesOf(dir, entries),
        requiredVars: requiredVariables(texts).filter((v) => !new RegExp(`^\\s*${v}\\s*=`, 'm').test(assigned)),
      });
    }
    if (depth >= MAX_DEPTH) return;
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.') || SKIP_DIRS.has(e.name)) continue;
      await walk(rel ? `${rel}/${e.name}` : e.name, depth + 1);
    }
  }
  await walk('', 0);

  const isModule = (rel: string) =>
    called.has(rel || '.') || rel.split('/').some((segment) => MODULE_SEGMENTS.has(segment));
  return {
    stacks: found
      .filter((f) => !isModule(f.rel))
      .map((f) => ({
        rel: f.rel,
        ...backendOf(f.texts),
        workspaces: f.workspaces,
        requiredVars: f.requiredVars,
        varFiles: f.entries.filter((name) => name.endsWith('.tfvars') || name.endsWith('.tfvars.json')).sort(),
      })),
    modules: found.filter((f) => isModule(f.rel)).map((f) => f.rel),
    terragrunt,
  };
}

function backendOf(texts: string[]): { backend?: StackDir['backend'] } {
  for (const text of texts) {
    const m = BACKEND.exec(text.replace(/#.*$|\/\/.*$/gm, ''));
    if (m) return { backend: { type: m[1]!, partial: m[2]!.trim() === '' } };
  }
  return {};
}

const VARIABLE = /\bvariable\s+"([A-Za-z_][\w-]*)"\s*\{/g;

/** `variable "x" { … }` blocks with no `default`: braces are counted, strings and comments are not parsed. */
function requiredVariables(texts: string[]): string[] {
  const names: string[] = [];
  for (const raw of texts) {
    const text = raw.replace(/#.*$|\/\/.*$/gm, '');
    for (const m of text.matchAll(VARIABLE)) {
      let depth = 1;
      let i = m.index + m[0].length;
      while (i < text.length && depth > 0) {
        if (text[i] === '{') depth++;
        else if (text[i] === '}') depth--;
        i++;
      }
      const body = text.slice(m.index + m[0].length, i - 1);
      // Only the block's own attributes: nested blocks (validation) are skipped by depth.
      if (!/^\s*default\s*=/m.test(body)) names.push(m[1]!);
    }
  }
  return [...new Set(names)].sort();
}

/** Workspaces of local state (`terraform.tfstate.d/<name>`) and the one `.terraform/environment` selects. */
async function workspacesOf(dir: string, entries: { name: string; isDirectory(): boolean }[]): Promise<string[]> {
  const names = new Set<string>();
  if (entries.some((e) => e.name === 'terraform.tfstate.d' && e.isDirectory())) {
    for (const e of await readdir(join(dir, 'terraform.tfstate.d'), { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) names.add(e.name);
    }
  }
  const selected = (await readFile(join(dir, '.terraform', 'environment'), 'utf8').catch(() => '')).trim();
  if (selected) names.add(selected);
  names.delete('default');
  return [...names].sort();
}
