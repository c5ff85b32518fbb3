/**
 * driftgate.yml for tests, typed against the config file's input (what a person may write), so a key
 * misspelt in a test is a type error rather than a strict-schema failure at run time. Tests that are about
 * the YAML text itself (parsing, `${ENV}` syntax, error positions, comments) keep writing text.
 */
import { stringify } from 'yaml';
import type { z } from 'zod';
import type { ConfigFile } from '../../src/config/schema.js';

export type ConfigInput = z.input<typeof ConfigFile>;
type Section<K extends keyof ConfigInput> = NonNullable<ConfigInput[K]>;
export type StackInput = Section<'stacks'>[number];
/** What a stack entry takes besides its name and dir. */
export type StackSettings = Omit<StackInput, 'name' | 'dir'>;
export type ApproversInput = Section<'approvers'>;
export type SlackInput = Section<'slack'>;

/** Array items stay whole (a stack entry needs its name and dir); objects may leave out any key. */
type DeepPartial<T> = T extends readonly (infer U)[]
  ? U[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;
/** A part of a config, as tests and helpers pass it around: merged with `mergeConfig`. */
export type ConfigPatch = DeepPartial<ConfigInput>;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function merge(a: unknown, b: unknown): unknown {
  if (b === undefined) return a;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (isObject(a) && isObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [key, value] of Object.entries(b)) out[key] = merge(a[key], value);
    return out;
  }
  return b;
}

/** Later parts win key by key; arrays are appended (a helper's stacks, then the test's). */
export function mergeConfig(...parts: (ConfigPatch | undefined)[]): ConfigPatch {
  return parts.reduce<ConfigPatch>((acc, part) => merge(acc, part) as ConfigPatch, {});
}

/**
 * The merged parts as driftgate.yml text, with `version: 1` unless a part sets it. `${VAR}` values stay
 * plain strings, for the loader to interpolate.
 */
export function configYaml(...parts: (ConfigPatch | undefined)[]): string {
  return stringify(mergeConfig({ version: 1 }, ...parts), { lineWidth: 0 });
}

export function stackEntry(name: string, dir: string, settings: StackSettings = {}): StackInput {
  return { name, dir, ...settings };
}

type ApproverGroup = ApproversInput['groups'][string];

/** `approvers:` from groups (a list is the group's Slack user ids) and first-match rules. */
export function approvers(
  groups: Record<string, string[] | ApproverGroup>,
  rules?: ApproversInput['rules'],
  more: Omit<ApproversInput, 'groups' | 'rules'> = {},
): ConfigPatch {
  const entries = Object.entries(groups).map(([name, group]) => [
    name,
    Array.isArray(group) ? { users: group } : group,
  ]);
  return { approvers: { groups: Object.fromEntries(entries), ...(rules ? { rules } : {}), ...more } };
}

/** `slack:` with its default channel. */
export function slack(defaultChannel: string, more: Omit<Partial<SlackInput>, 'defaultChannel'> = {}): ConfigPatch {
  return { slack: { defaultChannel, ...more } };
}

/** `source: git:` for stacks whose dir is a path inside that repository. */
export function gitSource(url: string, more: Omit<NonNullable<ConfigInput['source']>['git'], 'url'> = {}): ConfigPatch {
  return { source: { git: { url, ...more } } };
}

/** A test's `driftgate serve`: no scheduled checks, no jitter, alerts to `channel` at once (no digest window). */
export function serveConfig(
  dataDir: string,
  stacks: StackInput[],
  channel: string,
  logLevel: NonNullable<ConfigInput['log']>['level'] = 'debug',
): ConfigPatch {
  return mergeConfig(
    { version: 1, dataDir, log: { level: logLevel }, defaults: { jitter: '0s', schedule: '0 0 1 1 *' }, stacks },
    slack(channel, { digestWindow: '0s' }),
  );
}
