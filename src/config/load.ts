import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, type ConfigIssue } from '../domain/errors.js';
import { discoverStacks } from './discover.js';
import { environmentValue } from './environment.js';
import { type CheckoutSourceHead, type Discovery, discoverFor, stacksOnDisk } from './discover-in-source.js';
import { interpolate, maskSubstitutions } from './interpolate.js';
import { formatIssuePath } from './issue-path.js';
import { parseYaml } from './parse-yaml.js';
import { loadPolicies, UNKNOWN_APPROVERS } from './policies.js';
import { DATA_DIR_ENV, dataDirOf, duplicateStackNames, resolveConfig } from './resolve.js';
import { ConfigFile, DEFAULT_OWNER_URL_ENV, StackEntry, type DriftgateConfig } from './schema.js';
import { schemaIssues } from './schema-issues.js';
import { slackWarnings } from './slack-warnings.js';
import { autoApplyIssues } from './auto-apply-guard.js';
import { stackDirWarning } from './stack-dirs.js';
import { runAsIssues, runnersIssues, terraformContainerIssues } from './runners.js';
import { gitSourceIssues, withGitSources } from './git-source.js';
import { sharedStateConfigIssues } from './shared-state.js';
import { unfilledPlaceholderIssues } from './stack-placeholders.js';

export type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** `--config`, relative to `cwd`. */
  file?: string;
  cwd: string;
  env: Env;
  /** `agent-worker`: a worker on the agent API, which reads none of the control plane's sections. */
  role?: ConfigRole;
  /**
   * How `discover` rules see `source.git`: they are matched in a checkout of its branch head. Without it
   * they find nothing there; only for commands that use no stack (`migrate`, `backup`).
   */
  checkoutHead?: CheckoutSourceHead;
}

export interface ParseConfigOptions {
  /** Absolute path the text came from, if any (named in errors). */
  file?: string;
  /** Relative paths in the config resolve against this. */
  baseDir: string;
  env: Env;
  role?: ConfigRole;
  /** What a relative `$DRIFTGATE_DATA_DIR` is relative to; default `baseDir`. */
  cwd?: string;
  checkoutHead?: CheckoutSourceHead;
}

export type ConfigRole = 'agent-worker';

/**
 * What only the control plane reads: its store, its artifact bucket, the bot's Slack, on-call and GitHub.
 * A worker on the agent API leaves them as written, uninterpolated, so it needs none of their variables.
 */
const CONTROL_PLANE_SECTIONS = ['store', 'artifacts', 'slack', 'pagerduty', 'github'] as const;

/** What `driftgate validate` shows: `config` is set exactly when `issues` is empty. */
export interface ConfigValidation {
  file?: string;
  config?: DriftgateConfig;
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
  /** The terraform binary a file with errors elsewhere names, so that validate still looks for it. */
  terraformBinary?: string;
  /** No config file where it was looked for (`driftgate init` writes one). */
  notFound?: boolean;
}

/** Hundreds of stacks fit in a few hundred KB; anything far larger is not a config file. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Loads, validates and resolves the config; every problem at once in one ConfigError. */
export async function loadConfig(options: LoadConfigOptions): Promise<DriftgateConfig> {
  return unwrap(await validateConfigFile(options));
}

/** Like loadConfig for text in hand (tests, the demo). */
export async function parseConfig(text: string, options: ParseConfigOptions): Promise<DriftgateConfig> {
  return unwrap(await validateConfigText(text, options));
}

function unwrap(result: ConfigValidation): DriftgateConfig {
  if (!result.config) throw new ConfigError(result.issues, result.file);
  return result.config;
}

/** `--config` > `DRIFTGATE_CONFIG` > `<cwd>/driftgate.yml`, with how the file was chosen for messages. */
export function resolveConfigPath(options: LoadConfigOptions): { path: string; chosenBy: string } {
  if (options.file) return { path: resolve(options.cwd, options.file), chosenBy: 'given with --config' };
  const fromEnv = environmentValue(options.env, 'DRIFTGATE_CONFIG');
  if (fromEnv)
    return { path: resolve(options.cwd, fromEnv), chosenBy: 'from the DRIFTGATE_CONFIG environment variable' };
  return {
    path: resolve(options.cwd, 'driftgate.yml'),
    chosenBy: 'the default in the current directory; pass --config or set DRIFTGATE_CONFIG to use another file',
  };
}

/** A path's kind, or undefined when nothing is there (or it cannot be looked at: said when it is read). */
async function kindOf(path: string): Promise<'file' | 'dir' | 'other' | undefined> {
  const info = await stat(path).catch(() => undefined);
  return !info ? undefined : info.isFile() ? 'file' : info.isDirectory() ? 'dir' : 'other';
}

/**
 * resolveConfigPath, on the disk: a directory given stands for the driftgate.yml in it, and with nothing
 * given the nearest driftgate.yml in the current directory or above it is used, as git finds its repository.
 */
export async function findConfigPath(options: LoadConfigOptions): Promise<{ path: string; chosenBy: string }> {
  const chosen = resolveConfigPath(options);
  if (options.file || environmentValue(options.env, 'DRIFTGATE_CONFIG')) {
    if ((await kindOf(chosen.path)) !== 'dir') return chosen;
    const inside = join(chosen.path, CONFIG_NAME);
    return { path: inside, chosenBy: `in the directory ${chosen.chosenBy}` };
  }
  for (let dir = resolve(options.cwd); ; dir = dirname(dir)) {
    const path = join(dir, CONFIG_NAME);
    if (await kindOf(path)) {
      return dir === resolve(options.cwd) ? chosen : { path, chosenBy: `found in ${dir}, above the current directory` };
    }
    if (dirname(dir) === dir) return { path: chosen.path, chosenBy: NOT_FOUND_ABOVE };
  }
}

const CONFIG_NAME = 'driftgate.yml';
const NOT_FOUND_ABOVE =
  'none here or in any directory above; run `driftgate init` to write one, or pass --config or set DRIFTGATE_CONFIG to use another file';

export async function validateConfigFile(options: LoadConfigOptions): Promise<ConfigValidation> {
  const { path, chosenBy } = await findConfigPath(options);
  const fail = (message: string, notFound = false): ConfigValidation => ({
    file: path,
    issues: [{ path: '', message }],
    warnings: [],
    ...(notFound ? { notFound } : {}),
  });
  const info = await stat(path).catch((err: NodeJS.ErrnoException) => err);
  if (info instanceof Error) {
    return info.code === 'ENOENT'
      ? fail(`config file ${path} does not exist (${chosenBy})`, true)
      : fail(`cannot read config file ${path} (${chosenBy}): ${info.code ?? info.message}`);
  }
  if (!info.isFile()) return fail(`config file ${path} (${chosenBy}) is not a regular file`);
  if (info.size > MAX_CONFIG_BYTES)
    return fail(`config file ${path} is ${info.size} bytes; the limit is ${MAX_CONFIG_BYTES}`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return fail(`cannot read config file ${path} (${chosenBy}): ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return validateConfigText(text, {
    file: path,
    baseDir: dirname(path),
    env: options.env,
    cwd: options.cwd,
    ...(options.role ? { role: options.role } : {}),
    ...(options.checkoutHead ? { checkoutHead: options.checkoutHead } : {}),
  });
}

/**
 * A worker's view of the document: the control plane's sections dropped, and the variables they name
 * (`${DATABASE_URL}`), which such a worker refuses to find in its own environment.
 */
function withoutControlPlane(document: unknown): { document: unknown; variables: string[] } {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return { document, variables: [] };
  const kept: Record<string, unknown> = { ...(document as Record<string, unknown>) };
  const variables = new Set<string>();
  // `${VAR}` in the section's values, and the variables its `…Env` keys name (`ownerUrlEnv`, `routingKeyEnv`).
  const collect = (node: unknown, key = ''): void => {
    if (typeof node === 'string') {
      for (const m of node.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) variables.add(m[1]!);
      if (key.endsWith('Env') && /^[A-Za-z_][A-Za-z0-9_]*$/.test(node)) variables.add(node);
    } else if (Array.isArray(node)) for (const item of node) collect(item);
    else if (node !== null && typeof node === 'object') for (const [k, v] of Object.entries(node)) collect(v, k);
  };
  for (const section of CONTROL_PLANE_SECTIONS) {
    collect(kept[section]);
    delete kept[section];
  }
  // The schema owner's URL, under its default name when the store names none.
  if (document && typeof document === 'object' && 'store' in document) variables.add(DEFAULT_OWNER_URL_ENV);
  return { document: kept, variables: [...variables].sort() };
}

/** YAML -> interpolation -> schema -> semantic checks -> discovery -> resolution. */
export async function validateConfigText(text: string, options: ParseConfigOptions): Promise<ConfigValidation> {
  const file = options.file;
  const yaml = parseYaml(text);
  if (yaml.issues.length) return { file, issues: yaml.issues, warnings: yaml.warnings };
  if (isEmptyDocument(yaml.value))
    return { file, issues: [{ path: '', message: EMPTY_CONFIG }], warnings: yaml.warnings };

  const worker = options.role === 'agent-worker' ? withoutControlPlane(yaml.value) : undefined;
  const interpolated = interpolate(worker ? worker.document : yaml.value, options.env);
  const failed = new Set(interpolated.failedPaths.map(formatIssuePath));
  const document = documentIssues(interpolated.value);
  const reported = new Set(document.map((i) => i.path));
  const issues = [...interpolated.issues, ...document];
  const warnings = [...yaml.warnings];
  const mask = (list: ConfigIssue[]) => maskSubstitutions(list, interpolated.substitutions, interpolated.value);

  const parsed = ConfigFile.safeParse(interpolated.value);
  if (!parsed.success) {
    issues.push(
      ...schemaIssues(parsed.error.issues, interpolated.value, ConfigFile).filter(
        (i) => !failed.has(i.path) && !reported.has(i.path),
      ),
    );
  }
  issues.push(...duplicateStackNames(interpolated.value));
  const baseDir = resolve(options.baseDir);
  if (!parsed.success || issues.length) {
    // Everything that can still be checked, so one run of `validate` shows it all.
    const sections = await checkSections(interpolated.value, baseDir);
    return {
      file,
      issues: mask([...issues, ...sections.issues]),
      warnings: mask([...warnings, ...sections.warnings]),
      ...(sections.terraformBinary ? { terraformBinary: sections.terraformBinary } : {}),
    };
  }

  const dataDirEnv = environmentValue(options.env, DATA_DIR_ENV);
  const dataDirFromEnv = dataDirEnv ? resolve(options.cwd ?? baseDir, dataDirEnv) : undefined;
  const dataDir = dataDirOf(parsed.data, { baseDir, dataDirFromEnv });
  const discovery = await discoverFor(parsed.data, baseDir, options.checkoutHead, dataDir);
  try {
    const found = { discovery, issues, warnings, mask, worker, dataDirFromEnv };
    return await resolveValidated(parsed.data, found, { file, baseDir, substitutions: interpolated.substitutions });
  } finally {
    await discovery.tree?.release();
  }
}

/** What validateConfigText found before resolving: the stacks discovered, the problems so far. */
interface Found {
  discovery: Discovery;
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
  mask: (list: ConfigIssue[]) => ConfigIssue[];
  worker: ReturnType<typeof withoutControlPlane> | undefined;
  dataDirFromEnv: string | undefined;
}

/** A valid file and its discovered stacks -> the config, with the checks that need it resolved. */
async function resolveValidated(
  data: ConfigFile,
  { discovery, issues, warnings, mask, worker, dataDirFromEnv }: Found,
  { file, baseDir, substitutions }: { file: string | undefined; baseDir: string; substitutions: { value: string }[] },
): Promise<ConfigValidation> {
  issues.push(...discovery.issues);
  // With no stack listed, a glob that matches nothing leaves nothing to check: an error, not "ok, 0 stacks".
  const nothing = discovery.stacks.length === 0 && data.stacks.length === 0;
  const unmatched = new Set(discovery.unmatched.map((i) => `discover[${i}].glob`));
  for (const warning of discovery.warnings) {
    if (nothing && unmatched.has(warning.path))
      issues.push({
        ...warning,
        message: `${warning.message} (${discovery.where ? `in ${discovery.where}` : `relative to ${baseDir}`}), and no stack is listed under "stacks:": nothing to check`,
      });
    else warnings.push(warning);
  }
  const policies = await loadPolicies(data.policies, baseDir, data.approvers);
  issues.push(...policies.issues);
  issues.push(...gitSourceIssues(data));
  if (!worker) issues.push(...runnersIssues(data));
  const config = withGitSources(
    data,
    resolveConfig(data, {
      ...(file ? { file } : {}),
      baseDir,
      discovered: discovery.stacks,
      cpus: availableParallelism(),
      policies: policies.rules,
      ...(dataDirFromEnv ? { dataDirFromEnv } : {}),
    }),
    discovery.stacks,
  );
  config.interpolated = substitutions.map((s) => s.value);
  if (discovery.tree) config.discoveredAt = discovery.tree.sha;
  issues.push(...runAsIssues(config), ...terraformContainerIssues(config));
  if (worker) config.controlPlaneVariables = worker.variables;
  warnings.push(...slackWarnings(config));
  // stacks[1].mode, or discover[0].mode for a discovered stack (the message names the stack).
  issues.push(...autoApplyIssues(config.stacks, (stack) => `${stack.configKey ?? 'stacks'}.mode`));
  issues.push(...unfilledPlaceholderIssues(config.stacks));
  // Two stacks on one state would each offer to destroy the other's resources: never run like that.
  issues.push(...(await sharedStateConfigIssues(stacksOnDisk(config.stacks, data.source?.git, discovery.tree))));
  // A stack from Git has a path inside the repository: nothing to look at before a checkout.
  warnings.push(...(await stackDirWarnings(config.stacks.filter((stack) => !stack.git))));
  return { file, ...(issues.length ? {} : { config }), issues: mask(issues), warnings: mask(warnings) };
}

async function stackDirWarnings(stacks: readonly Parameters<typeof stackDirWarning>[0][]): Promise<ConfigIssue[]> {
  const found = await Promise.all(stacks.map(stackDirWarning));
  return found.filter((w): w is ConfigIssue => w !== undefined);
}

/**
 * With the file as a whole invalid, the sections that are valid on their own are still checked:
 * discovery, policies (their CEL compiles) and the dirs of well-formed local stack entries.
 */
async function checkSections(
  document: unknown,
  baseDir: string,
): Promise<Pick<ConfigValidation, 'issues' | 'warnings' | 'terraformBinary'>> {
  const doc = isRecord(document) ? document : {};
  const shape = ConfigFile.shape;
  const terraform = shape.terraform.safeParse(doc.terraform);
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const discover = shape.discover.safeParse(doc.discover);
  // With source.git the rules look in the repository, which is not fetched for a file that is invalid.
  if (discover.success && doc.source === undefined) {
    const discovery = await discoverStacks(discover.data, baseDir);
    issues.push(...discovery.issues);
    warnings.push(...discovery.warnings);
  }
  const policies = shape.policies.safeParse(doc.policies);
  const approvers = shape.approvers.safeParse(doc.approvers);
  if (policies.success) {
    // Unknown approver groups cannot be told while the approvers section itself is invalid.
    const groups = approvers.success ? approvers.data : UNKNOWN_APPROVERS;
    issues.push(...(await loadPolicies(policies.data, baseDir, groups)).issues);
  }
  const entries = Array.isArray(doc.stacks) ? doc.stacks : [];
  const local = entries.flatMap((entry: unknown, index) => {
    const stack = StackEntry.safeParse(entry);
    if (!stack.success || stack.data.source || doc.source !== undefined) return [];
    return [{ name: stack.data.name, dir: resolve(baseDir, stack.data.dir), configKey: `stacks[${index}]` }];
  });
  warnings.push(...(await stackDirWarnings(local)));
  return { issues, warnings, ...(terraform.success ? { terraformBinary: terraform.data.binary } : {}) };
}

const EMPTY_CONFIG =
  'the config file is empty: it needs "version: 1" and stacks, listed under "stacks:" (each with a name and a dir) or found by "discover:" (a glob such as environments/*/*)';

/** What the schema alone would say less helpfully: a missing version, a file that names no stack. */
function documentIssues(document: unknown): ConfigIssue[] {
  if (!isRecord(document)) return []; // the schema says what it should be
  const issues: ConfigIssue[] = [];
  if (document.version === undefined)
    issues.push({ path: 'version', message: 'required: add "version: 1" at the top of the file' });
  const given = (v: unknown) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
  if (!given(document.stacks) && !given(document.discover)) {
    issues.push({
      path: 'stacks',
      message:
        'no stacks: list them under "stacks:" (each with a name and a dir, e.g. "- { name: prod/app, dir: environments/prod/app }") or find them with "discover:" (e.g. "- glob: environments/*/*")',
    });
  }
  return issues;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An empty or comment-only file (parsed as `{}`). */
function isEmptyDocument(value: unknown): boolean {
  return isRecord(value) && Object.keys(value).length === 0;
}
