import { isAbsolute, join, posix, relative, resolve } from 'node:path';
import type { ConfigIssue } from '../domain/errors.js';
import type { PolicyRule } from '../domain/policy/model.js';
import type { DiscoveredStack } from './discover.js';
import type { ConfigFile, DiscoverEntry, DriftgateConfig, StackEntry } from './schema.js';
import type { Stack } from '../domain/stack.js';
import { fillPlaceholders } from './stack-placeholders.js';

export interface ResolveContext {
  /** Absolute path of the config file, if any. */
  file?: string;
  /** Relative paths in the file are relative to this (the config file's dir). */
  baseDir: string;
  discovered: readonly DiscoveredStack[];
  /** Default for `defaults.concurrency`. */
  cpus: number;
  /** The rules of `policies`, policy files read (see policies.ts). */
  policies: PolicyRule[];
  /** `$DRIFTGATE_DATA_DIR`, absolute: the data dir when the file sets none. */
  dataDirFromEnv?: string;
}

export const DATA_DIR_ENV = 'DRIFTGATE_DATA_DIR';

type StackSettings = Omit<StackEntry, 'name' | 'dir'>;

/**
 * A validated file -> the config the app runs on: defaults applied, paths absolute, stacks from
 * `stacks` (file order) then discovered ones not overridden by an explicit entry of the same name.
 */
export function resolveConfig(file: ConfigFile, ctx: ResolveContext): DriftgateConfig {
  const abs = (p: string) => resolve(ctx.baseDir, p);
  const dataDir = dataDirOf(file, ctx);
  const dataDirSetBy = file.dataDir
    ? `dataDir in ${ctx.file ?? 'the config'}`
    : ctx.dataDirFromEnv
      ? `the ${DATA_DIR_ENV} environment variable`
      : `the default: no dataDir in ${ctx.file ?? 'the config'}, no ${DATA_DIR_ENV}`;
  const defaults = { ...file.defaults, concurrency: file.defaults.concurrency ?? ctx.cpus };
  const runAs = file.runners.runAs
    ? { ...file.runners.runAs, dir: file.runners.runAs.dir ? abs(file.runners.runAs.dir) : `${dataDir}-terraform` }
    : undefined;
  const container = file.runners.type === 'workers' ? file.runners.terraformContainer : undefined;
  const terraformContainer = container
    ? {
        dir: abs(container.dir),
        socket: container.socket ? abs(container.socket) : join(abs(container.dir), 'terraform.sock'),
      }
    : undefined;
  const explicit = file.stacks.map((entry, i) =>
    toStack({ name: entry.name, dir: abs(entry.dir), asWritten: entry.dir }, `stacks[${i}]`, entry, defaults),
  );
  const named = new Set(explicit.map((s) => s.name));
  const discovered = ctx.discovered
    .filter((found) => !named.has(found.name))
    .map((found) =>
      toStack(
        // One found in a Git source is written as a `dir` under `stacks` would be: in the repository.
        found.inSource !== undefined
          ? { name: found.name, dir: abs(found.inSource), asWritten: found.inSource }
          : { name: found.name, dir: found.dir, asWritten: relative(ctx.baseDir, found.dir) },
        `discover[${found.rule}]`,
        ruleSettings(file.discover[found.rule]),
        defaults,
        found.environment,
      ),
    );
  return {
    ...(ctx.file ? { file: ctx.file } : {}),
    baseDir: ctx.baseDir,
    dataDir,
    dataDirSetBy,
    terraform: {
      ...file.terraform,
      pluginCacheDir: file.terraform.pluginCacheDir
        ? abs(file.terraform.pluginCacheDir)
        : join(runAs?.dir ?? terraformContainer?.dir ?? dataDir, 'plugin-cache'),
    },
    artifacts:
      file.artifacts.type === 'local'
        ? { ...file.artifacts, dir: file.artifacts.dir ? abs(file.artifacts.dir) : join(dataDir, 'artifacts') }
        : file.artifacts,
    store: file.store,
    runners: file.runners,
    ...(runAs ? { runAs } : {}),
    ...(terraformContainer ? { terraformContainer } : {}),
    defaults,
    stacks: [...explicit, ...discovered],
    ...(file.slack ? { slack: file.slack } : {}),
    ...(file.approvers ? { approvers: file.approvers } : {}),
    ...(file.pagerduty ? { pagerduty: file.pagerduty } : {}),
    ...(file.github ? { github: file.github } : {}),
    ...(file.changeEvents ? { changeEvents: file.changeEvents } : {}),
    policies: ctx.policies,
    log: file.log,
  };
}

/** `dataDir`, else `$DRIFTGATE_DATA_DIR`, else `.driftgate` beside the config: absolute. */
export function dataDirOf(
  file: Pick<ConfigFile, 'dataDir'>,
  ctx: Pick<ResolveContext, 'baseDir' | 'dataDirFromEnv'>,
): string {
  if (file.dataDir) return resolve(ctx.baseDir, file.dataDir);
  return ctx.dataDirFromEnv ?? resolve(ctx.baseDir, '.driftgate');
}

function ruleSettings(rule: DiscoverEntry | undefined): StackSettings {
  if (!rule) return {};
  const { glob: _glob, exclude: _exclude, namePrefix: _namePrefix, ...settings } = rule;
  return settings;
}

/** A stack's dir, absolute and as the config (or discovery, relative to the config's dir) gives it. */
interface StackPlace {
  name: string;
  dir: string;
  asWritten: string;
}

function toStack(
  { name, dir, asWritten }: StackPlace,
  configKey: string,
  written: StackSettings,
  defaults: DriftgateConfig['defaults'],
  discoveredEnvironment?: string,
): Stack {
  const environment = written.environment ?? discoveredEnvironment;
  const settings = fillPlaceholders(written, {
    name,
    dir: posix.normalize(asWritten.replaceAll('\\', '/')).replace(/\/$/, ''),
    ...(environment !== undefined ? { environment } : {}),
  });
  return {
    name,
    configKey,
    dir,
    schedule: settings.schedule ?? defaults.schedule,
    vars: settings.vars ?? {},
    // terraform reads -var-file relative to the module it runs in, so that is what a relative path means.
    varFiles: (settings.varFiles ?? []).map((f) => (isAbsolute(f) ? f : resolve(dir, f))),
    env: settings.env ?? {},
    ...(settings.workspace !== undefined ? { workspace: settings.workspace } : {}),
    backendConfig: settings.backendConfig ?? {},
    ...(environment !== undefined ? { environment } : {}),
    labels: settings.labels ?? [],
    mode: settings.mode ?? defaults.mode,
    pool: settings.pool ?? defaults.pool,
    ...(settings.allowFrequentAutoApply ? { allowFrequentAutoApply: true } : {}),
    ...((settings.emptyState ?? defaults.emptyState) === 'plan' ? { planEmptyState: true } : {}),
  };
}

/** Works on the raw document so that it is reported together with schema issues. */
export function duplicateStackNames(document: unknown): ConfigIssue[] {
  const stacks = (document as { stacks?: unknown } | null)?.stacks;
  if (!Array.isArray(stacks)) return [];
  const first = new Map<string, number>();
  const issues: ConfigIssue[] = [];
  stacks.forEach((entry: unknown, index) => {
    const name = (entry as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') return;
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, index);
    else
      issues.push({
        path: `stacks[${index}].name`,
        message: `duplicate stack name ${JSON.stringify(name)} (also stacks[${earlier}].name)`,
      });
  });
  return issues;
}
