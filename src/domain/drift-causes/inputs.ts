/**
 * A stack's inputs as digests: each variable driftgate.yml sets (`vars`), each TF_VAR_* of the stack's
 * `env` and of driftgate's own environment (which terraform inherits), each variable a varFile sets. Compared with the digests of the last apply or clean check, they
 * name the variables whose values changed and where, never a value: the digests are salted per record, so
 * a stored digest of a short secret cannot be matched against a list of guesses made in advance.
 */
import { createHmac } from 'node:crypto';
import { scanHclBody } from '../hcl-scan.js';
import type { ChangedInput, InputDigest } from './model.js';

export interface InputSources {
  vars: Readonly<Record<string, unknown>>;
  env: Readonly<Record<string, string>>;
  /** TF_VAR_* terraform inherits from driftgate's environment; `env` wins where both set one. */
  inherited?: Readonly<Record<string, string>>;
  /** Each varFile as the config names it, with its text; `text` undefined when it could not be read. */
  varFiles: readonly { file: string; text: string | undefined }[];
}

const TF_VAR = 'TF_VAR_';

/** Each top-level variable a varFile sets -> its value's text (HCL kept as written, whitespace folded). */
function varFileValues(file: string, text: string): [string, string][] {
  if (file.endsWith('.json')) {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
    return Object.entries(parsed).map(([name, value]) => [name, JSON.stringify(value)]);
  }
  return scanHclBody(text).flatMap((item) =>
    item.kind === 'attribute' ? [[item.name, item.value.replace(/\s+/g, ' ').trim()] as [string, string]] : [],
  );
}

export function digestInputs(sources: InputSources, salt: string): InputDigest[] {
  const digest = (value: string) => createHmac('sha256', salt).update(value).digest('hex');
  const out: InputDigest[] = [];
  for (const [name, value] of Object.entries(sources.vars))
    out.push({ source: 'config', name, digest: digest(JSON.stringify(value ?? null)) });
  for (const [key, value] of Object.entries(sources.env))
    if (key.startsWith(TF_VAR) && key.length > TF_VAR.length)
      out.push({ source: 'env', name: key.slice(TF_VAR.length), digest: digest(value) });
  for (const [key, value] of Object.entries(sources.inherited ?? {}))
    if (key.startsWith(TF_VAR) && key.length > TF_VAR.length && !(key in sources.env))
      out.push({ source: 'process_env', name: key.slice(TF_VAR.length), digest: digest(value) });
  for (const { file, text } of sources.varFiles) {
    let values: [string, string][];
    try {
      values = text === undefined ? [] : varFileValues(file, text);
    } catch {
      values = [];
    }
    // An unreadable file is one input of its own: its change is seen, if not which variable it set.
    if (text === undefined || values.length === 0)
      out.push({ source: 'var_file', file, name: '', digest: digest(text ?? '\u0000unreadable') });
    for (const [name, value] of values) out.push({ source: 'var_file', file, name, digest: digest(value) });
  }
  return out;
}

const keyOf = (d: Pick<InputDigest, 'source' | 'file' | 'name'>) => `${d.source}\u0000${d.file ?? ''}\u0000${d.name}`;

/** The inputs set, unset or changed between two sets of digests made with the same salt. */
export function changedInputs(before: readonly InputDigest[], after: readonly InputDigest[]): ChangedInput[] {
  const was = new Map(before.map((d) => [keyOf(d), d]));
  const is = new Map(after.map((d) => [keyOf(d), d]));
  const out: ChangedInput[] = [];
  const entry = (d: InputDigest, change: ChangedInput['change']): ChangedInput => ({
    source: d.source,
    ...(d.file !== undefined ? { file: d.file } : {}),
    name: d.name,
    change,
  });
  for (const [key, d] of is) {
    const old = was.get(key);
    if (!old) out.push(entry(d, 'set'));
    else if (old.digest !== d.digest) out.push(entry(d, 'changed'));
  }
  for (const [key, d] of was) if (!is.has(key)) out.push(entry(d, 'unset'));
  return out;
}
