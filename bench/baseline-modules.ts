/**
 * Modules as they were at an earlier commit, compiled into a directory of their own, so that a benchmark
 * times today's code and the code before a change side by side, in one run on one machine (a figure from
 * another day on this shared machine says little). Only the files the entry points import are taken;
 * type-only imports are skipped (they compile to nothing).
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { execa } from 'execa';
import ts from 'typescript';

const VALUE_IMPORT = /^(?:import|export)\s+(?!type\b)[^;]*?from\s+'(\.{1,2}\/[^']+)\.js'/gm;
/** `await import('./commands/serve.js')`: the CLI loads each command's modules on demand. */
const DYNAMIC_IMPORT = /\bimport\(\s*'(\.{1,2}\/[^']+)\.js'\s*\)/g;

async function sourceAt(root: string, commit: string, path: string): Promise<string> {
  const shown = await execa('git', ['show', `${commit}:${path}`], { cwd: root, reject: false });
  if (shown.exitCode !== 0)
    throw new Error(`cannot read ${path} at ${commit} (a git checkout with its history is needed): ${shown.stderr}`);
  return shown.stdout;
}

/** Whether `path` exists at `commit`: an entry a later commit added is absent from an earlier one. */
export async function existsAt(root: string, commit: string, path: string): Promise<boolean> {
  return (await execa('git', ['cat-file', '-e', `${commit}:${path}`], { cwd: root, reject: false })).exitCode === 0;
}

/**
 * Compiles `entries` (paths like `src/domain/plan/analyze.ts`) and what they import, as of `commit`, into
 * `dir`, with `dir/node_modules` pointing at the package's own. Returns `dir`.
 */
export async function compileModulesAt(opts: {
  root: string;
  commit: string;
  entries: string[];
  dir: string;
}): Promise<string> {
  const pending = [...opts.entries];
  const done = new Set<string>();
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (done.has(path)) continue;
    done.add(path);
    const source = await sourceAt(opts.root, opts.commit, path);
    for (const match of [...source.matchAll(VALUE_IMPORT), ...source.matchAll(DYNAMIC_IMPORT)])
      pending.push(normalize(join(dirname(path), `${match[1]}.ts`)));
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
      fileName: path,
    });
    const out = join(opts.dir, path.replace(/\.ts$/, '.js'));
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, outputText);
  }
  await writeFile(join(opts.dir, 'package.json'), '{ "type": "module" }\n');
  await symlink(join(opts.root, 'node_modules'), join(opts.dir, 'node_modules'), 'dir');
  return opts.dir;
}

/**
 * The whole CLI as of `commit`, compiled into `dir` (every module `src/bin/driftgate.ts` imports, the
 * commands it loads on demand included): returns the path of its `driftgate.js`, to start as `node BIN`.
 */
export async function compileDriftgateAt(opts: { root: string; commit: string; dir: string }): Promise<string> {
  await compileModulesAt({ ...opts, entries: ['src/bin/driftgate.ts'] });
  return join(opts.dir, 'src/bin/driftgate.js');
}

/** The short sha of `rev` (HEAD by default), to name in a result what was measured. */
export async function shortSha(root: string, rev = 'HEAD'): Promise<string> {
  return (await execa('git', ['rev-parse', '--short', rev], { cwd: root })).stdout.trim();
}
