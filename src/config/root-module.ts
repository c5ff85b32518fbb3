import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scanHclBody, unquote } from '../domain/hcl-scan.js';
import type { BackendBlock } from '../domain/state-location.js';

/** A `variable` block with no `default`: a plan needs a value for it. */
export interface RequiredVariable {
  name: string;
  /** `variables.tf:3`, relative to the stack's dir. */
  where: string;
}

/** What config checks read of a stack's root module: its *.tf files, not its modules, not *.tf.json. */
export interface RootModule {
  backend?: BackendBlock;
  requiredVariables: RequiredVariable[];
}

async function tfTexts(dir: string): Promise<{ file: string; text: string }[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = entries.filter((e) => (e.isFile() || e.isSymbolicLink()) && /\.(tf|tofu)$/.test(e.name));
  const texts = await Promise.all(
    files.map(async (e) => ({ file: e.name, text: await readFile(join(dir, e.name), 'utf8').catch(() => '') })),
  );
  return texts.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/** Literal string and number settings; an expression is kept as written (terraform refuses one there anyway). */
function literalSettings(body: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const item of scanHclBody(body)) if (item.kind === 'attribute') settings[item.name] = unquote(item.value);
  return settings;
}

function lineOf(text: string, pattern: RegExp): number | undefined {
  const m = pattern.exec(text);
  return m ? text.slice(0, m.index).split('\n').length : undefined;
}

export async function readRootModule(dir: string): Promise<RootModule> {
  const module: RootModule = { requiredVariables: [] };
  for (const { file, text } of await tfTexts(dir)) {
    for (const item of scanHclBody(text)) {
      if (item.kind !== 'block') continue;
      if (item.type === 'terraform' && !module.backend) {
        const backend = scanHclBody(item.body).find((b) => b.kind === 'block' && b.type === 'backend');
        if (backend?.kind === 'block')
          module.backend = { type: backend.labels[0] ?? '', settings: literalSettings(backend.body) };
      }
      if (item.type === 'variable' && item.labels[0]) {
        const name = item.labels[0];
        const hasDefault = scanHclBody(item.body).some((a) => a.kind === 'attribute' && a.name === 'default');
        if (hasDefault) continue;
        const escaped = name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
        const line = lineOf(text, new RegExp(`^[ \\t]*variable\\s+"?${escaped}"?\\s*\\{`, 'm'));
        module.requiredVariables.push({ name, where: line ? `${file}:${line}` : file });
      }
    }
  }
  return module;
}
