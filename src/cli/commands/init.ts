import { selfCommand } from '../self-command.js';
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { installedBinary } from '../../app/cli/terraform-binary.js';
import { scanRepository } from '../../config/scaffold/find-stack-dirs.js';
import { inferLayout } from '../../config/scaffold/infer-layout.js';
import { adviceFor, renderConfig } from '../../config/scaffold/render-config.js';
import { DATA_DIR_IGNORE, withDataDirIgnored } from '../../config/scaffold/ignore-data-dir.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';
import { validateCommand } from './validate.js';

/**
 * `driftgate init [DIR]`: finds the stack layout of a repository and writes a commented driftgate.yml
 * for it, then validates that file and says what is left to fill in. An existing file is kept unless --force.
 */
export async function initCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { force: { type: 'boolean' } } });
  if (positionals.length > 1) throw new UsageError('name at most one directory');
  const root = resolve(io.cwd, positionals[0] ?? '.');
  const say = (line = '') => io.stdout.write(`${line}\n`);
  const isDir = await stat(root).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    io.stderr.write(`driftgate init: ${root} is not a directory\n`);
    return 1;
  }
  const file = join(root, 'driftgate.yml');
  const exists = await access(file).then(
    () => true,
    () => false,
  );
  if (exists && !values.force) {
    io.stderr.write(`driftgate init: ${file} already exists; pass --force to overwrite it\n`);
    return 1;
  }

  const scan = await scanRepository(root);
  if (scan.stacks.length === 0) {
    io.stderr.write(
      `driftgate init: no directory in ${root} holds *.tf files${scan.modules.length ? ` (only modules: ${scan.modules.slice(0, 3).join(', ')})` : ''}; run it in the repository of your Terraform stacks\n`,
    );
    return 1;
  }
  const layout = inferLayout(scan.stacks, scan.modules, basename(root));
  const binary = await installedBinary(io.env);
  await writeFile(file, renderConfig(layout, { binary, project: basename(root) }));

  const total = layout.rules.reduce((n, r) => n + r.names.length, 0) + layout.stacks.length;
  const where = [
    ...layout.rules.map((r) => r.shape),
    ...(layout.stacks.length ? [`${layout.stacks.length} named one by one`] : []),
  ].join('; ');
  say(`wrote ${file}: ${total} stack${total === 1 ? '' : 's'} (${where})`);
  if (layout.environments.length) say(`environments: ${layout.environments.join(', ')}`);
  say(await ignoreDataDir(root));
  const advice = adviceFor(layout, scan);
  for (const note of advice.notes) say(`note: ${note}`);
  say();
  const code = await validateCommand(['--config', file], io);
  say();
  say('Fill in:');
  for (const item of advice.fillIn) say(`  ${item}`);
  const shown = relative(io.cwd, file);
  const option = shown === 'driftgate.yml' ? '' : ` --config ${shown.startsWith('..') ? file : shown}`;
  // A command that works where it is run: `driftgate` when this build is on the PATH, else node and its path.
  say(`Then: ${selfCommand(io.env).command} doctor${option}`);
  return code;
}

/** Adds the data dir to the repository's .gitignore (made if missing) and says so, with why. */
async function ignoreDataDir(root: string): Promise<string> {
  const file = join(root, '.gitignore');
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const updated = withDataDirIgnored(text);
  if (updated === undefined) return `${file} already ignores ${DATA_DIR_IGNORE} (saved plans hold secrets in clear)`;
  await writeFile(file, updated);
  return `${text ? 'added' : 'wrote'} ${DATA_DIR_IGNORE} to ${file}: the data dir holds saved plans, with secrets in clear`;
}
