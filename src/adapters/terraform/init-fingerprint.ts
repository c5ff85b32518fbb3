import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { scanHclBody, unquote } from '../../domain/hcl-scan.js';

export const INIT_STAMP_FILE = join('.terraform', 'driftgate-init.sha256');

export interface InitInputs {
  dir: string;
  /** `terraform 1.11.4`: a new binary re-inits. */
  binaryVersion: string;
  workspace: string;
  backendConfig: Record<string, string | number | boolean>;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

async function tfFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && e.name.endsWith('.tf'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * What in a module tree makes `init` necessary: module `source`/`version`, the `terraform` blocks
 * (backend, required_providers) and the providers used (provider blocks, resource type prefixes).
 * Local modules (`./`, `../`) are followed. Heuristic by design (see domain/hcl-scan.ts): when it misses a
 * change, terraform fails the plan asking for init, and the lock file or a config edit re-inits.
 */
export async function initRelevantConfig(root: string): Promise<string[]> {
  const facts = new Set<string>();
  const visited = new Set<string>();
  const visit = async (dir: string): Promise<void> => {
    if (visited.has(dir) || visited.size > 200) return;
    visited.add(dir);
    const where = relative(root, dir) || '.';
    for (const file of await tfFiles(dir)) {
      const text = (await readOptional(join(dir, file))) ?? '';
      for (const item of scanHclBody(text)) {
        if (item.kind !== 'block') continue;
        const label = item.labels[0] ?? '';
        if (item.type === 'module') {
          const attrs = new Map(
            scanHclBody(item.body).flatMap((a) =>
              a.kind === 'attribute' ? [[a.name, unquote(a.value)] as const] : [],
            ),
          );
          const source = attrs.get('source') ?? '';
          facts.add(`module ${where} ${label} ${source} ${attrs.get('version') ?? ''}`);
          if (source.startsWith('./') || source.startsWith('../')) await visit(resolve(dir, source));
        } else if (item.type === 'terraform') {
          facts.add(`terraform ${where} ${item.body.replace(/\s+/g, ' ').trim()}`);
        } else if (item.type === 'provider') {
          facts.add(`provider ${label}`);
        } else if (['resource', 'data', 'ephemeral'].includes(item.type)) {
          facts.add(`provider ${label.split('_', 1)[0]}`);
        }
      }
    }
  };
  await visit(resolve(root));
  return [...facts].sort();
}

/** sha256 over everything that decides whether `.terraform` is current. */
export async function initFingerprint(inputs: InitInputs): Promise<string> {
  const lockFile = await readOptional(join(inputs.dir, '.terraform.lock.hcl'));
  const backend = Object.entries(inputs.backendConfig).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const payload = JSON.stringify({
    v: 1,
    binary: inputs.binaryVersion,
    workspace: inputs.workspace,
    lockFile,
    backend,
    config: await initRelevantConfig(inputs.dir),
  });
  return createHash('sha256').update(payload).digest('hex');
}

/** The fingerprint stored by the last successful init (at `file`), or null when there is none. */
export function readInitStamp(file: string): Promise<string | null> {
  return readOptional(file).then((s) => s?.split('\n', 1)[0]?.trim() ?? null);
}

/** `dir`: the stack dir, on a second line, for a stamp kept outside it (so that it can go when the dir does). */
export async function writeInitStamp(file: string, fingerprint: string, dir?: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, dir === undefined ? `${fingerprint}\n` : `${fingerprint}\n${dir}\n`);
}

/** The stack dir a stamp kept outside it names; undefined for one written before stamps named it. */
export async function stampedDir(file: string): Promise<string | undefined> {
  const dir = (await readOptional(file))?.split('\n')[1]?.trim();
  return dir ? dir : undefined;
}
