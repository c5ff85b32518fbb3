/**
 * What a saved plan file (a zip terraform writes with `plan -out`) holds beside the plan: the dependency
 * lock file (`.terraform.lock.hcl`: each provider's version), the module manifest of its configuration
 * snapshot (`tfconfig/modules.json`) and the prior state (`tfstate`: the backend's serial and lineage;
 * terraform 1.11 writes `tfstate-prev` without them). Reading these costs no terraform process and works wherever terraform ran (a worker sends the
 * plan file back). Pure: the caller reads the file. Anything unreadable is left out, never guessed.
 */
import { constants, inflateRawSync } from 'node:zlib';
import { scanHclBody, unquote } from '../hcl-scan.js';
import type { ModuleSource, StackEvidence } from './model.js';
import { sourceWithoutCredentials } from './module-source.js';

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function centralDirectory(zip: Buffer): ZipEntry[] {
  const floor = Math.max(0, zip.length - 22 - 0xffff);
  let eocd = -1;
  for (let i = zip.length - 22; i >= floor; i--)
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  if (eocd < 0) return [];
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count && at + 46 <= zip.length && zip.readUInt32LE(at) === CENTRAL; n++) {
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    entries.push({
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      localOffset: zip.readUInt32LE(at + 42),
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at += 46 + skip;
  }
  return entries;
}

/** An entry's bytes; with `head`, only about that many of its first bytes (a large state's header). */
function entryData(zip: Buffer, entry: ZipEntry, head?: number): Buffer | undefined {
  const at = entry.localOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL) return undefined;
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const whole = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return head ? whole.subarray(0, head) : whole;
  if (entry.method !== 8) return undefined;
  // A head of the compressed data inflates to a head of the text without reading the rest.
  const input = head ? whole.subarray(0, head) : whole;
  return inflateRawSync(input, head ? { finishFlush: constants.Z_SYNC_FLUSH } : {});
}

/** `provider "registry.terraform.io/hashicorp/aws" { version = "5.100.0" … }` -> address -> version. */
export function lockFileProviders(text: string): Record<string, string> {
  const providers: Record<string, string> = {};
  for (const item of scanHclBody(text)) {
    if (item.kind !== 'block' || item.type !== 'provider' || !item.labels[0]) continue;
    const version = scanHclBody(item.body).find((a) => a.kind === 'attribute' && a.name === 'version');
    if (version?.kind === 'attribute') providers[item.labels[0]] = unquote(version.value);
  }
  return providers;
}

/** The module manifest: each module call's key with the source and version init resolved. */
export function moduleManifest(text: string): Record<string, ModuleSource> {
  const modules: Record<string, ModuleSource> = {};
  type Entry = { Key?: unknown; Source?: unknown; Version?: unknown };
  const parsed = JSON.parse(text) as Entry[] | { Modules?: Entry[] };
  // A list in the plan's snapshot; `.terraform/modules/modules.json` wraps the same in `Modules`.
  const list = Array.isArray(parsed) ? parsed : (parsed.Modules ?? []);
  for (const m of list) {
    // The root module has the empty key: it is the stack's own code, which Git tells about.
    if (typeof m.Key !== 'string' || m.Key === '') continue;
    modules[m.Key] = {
      source: typeof m.Source === 'string' ? sourceWithoutCredentials(m.Source) : '',
      version: typeof m.Version === 'string' ? m.Version : '',
    };
  }
  return modules;
}

/** serial and lineage from the head of a state file (terraform writes them before the resources). */
export function stateHeader(head: string): StackEvidence['state'] {
  const serial = /"serial"\s*:\s*(\d+)/.exec(head)?.[1];
  const lineage = /"lineage"\s*:\s*"([^"\\]*)"/.exec(head)?.[1];
  // An empty lineage is a snapshot written without its identity: no evidence.
  return serial !== undefined && lineage ? { serial: Number(serial), lineage } : undefined;
}

const STATE_HEAD = 4096;

export function planFileEvidence(zip: Buffer): Pick<StackEvidence, 'providers' | 'modules' | 'state'> {
  const out: Pick<StackEvidence, 'providers' | 'modules' | 'state'> = {};
  let entries: ZipEntry[];
  try {
    entries = centralDirectory(zip);
  } catch {
    return out;
  }
  if (entries.length === 0) return out;
  const read = (name: string, head?: number) => {
    const entry = entries.find((e) => e.name === name);
    try {
      return entry ? entryData(zip, entry, head)?.toString('utf8') : undefined;
    } catch {
      return undefined;
    }
  };
  const lock = read('.terraform.lock.hcl');
  // No lock file: the stack uses no provider that needs one (terraform's builtin ones only).
  out.providers = lock === undefined ? {} : lockFileProviders(lock);
  const manifest = read('tfconfig/modules.json');
  if (manifest !== undefined) {
    try {
      out.modules = moduleManifest(manifest);
    } catch {
      // left out: unknown, not "no modules"
    }
  }
  const state = read('tfstate', STATE_HEAD);
  const header = state === undefined ? undefined : stateHeader(state);
  if (header) out.state = header;
  return out;
}
