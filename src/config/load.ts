import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { ConfigError, type ConfigIssue } from '../domain/errors.js';
import { discoverStacks } from './discover.js';
import { interpolate, maskSubstitutions } from './interpolate.js';
import { formatIssuePath } from './issue-path.js';
import { parseYaml } from './parse-yaml.js';
import { loadPolicies } from './policies.js';
import { duplicateStackNames, resolveConfig } from './resolve.js';
import { ConfigFile, type DriftgateConfig } from './schema.js';
import { schemaIssues } from './schema-issues.js';
import { slackWarnings } from './slack-warnings.js';
import { autoApplyIssues } from './auto-apply-guard.js';
import { stackDirWarning } from './stack-dirs.js';
import { gitSourceIssues, withGitSources } from './git-source.js';

export type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** `--config`, relative to `cwd`. */
  file?: string;
  cwd: string;
  env: Env;
}

export interface ParseConfigOptions {
  /** Absolute path the text came from, if any (named in errors). */
  file?: string;
  /** Relative paths in the config resolve against this. */
  baseDir: string;
  env: Env;
}

/** What `driftgate validate` shows: `config` is set exactly when `issues` is empty. */
export interface ConfigValidation {
  file?: string;
  config?: DriftgateConfig;
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
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
  const fromEnv = options.env.DRIFTGATE_CONFIG;
  if (fromEnv)
    return { path: resolve(options.cwd, fromEnv), chosenBy: 'from the DRIFTGATE_CONFIG environment variable' };
  return {
    path: resolve(options.cwd, 'driftgate.yml'),
    chosenBy: 'the default in the current directory; pass --config or set DRIFTGATE_CONFIG to use another file',
  };
}

export async function validateConfigFile(options: LoadConfigOptions): Promise<ConfigValidation> {
  const { path, chosenBy } = resolveConfigPath(options);
  const fail = (message: string): ConfigValidation => ({ file: path, issues: [{ path: '', message }], warnings: [] });
  const info = await stat(path).catch((err: NodeJS.ErrnoException) => err);
  if (info instanceof Error) {
    return fail(
      info.code === 'ENOENT'
        ? `config file ${path} does not exist (${chosenBy})`
        : `cannot read config file ${path} (${chosenBy}): ${info.code ?? info.message}`,
    );
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
  return validateConfigText(text, { file: path, baseDir: dirname(path), env: options.env });
}

/** YAML -> interpolation -> schema -> semantic checks -> discovery -> resolution. */
export async function validateConfigText(text: string, options: ParseConfigOptions): Promise<ConfigValidation> {
  const file = options.file;
  const yaml = parseYaml(text);
  if (yaml.issues.length) return { file, issues: yaml.issues, warnings: yaml.warnings };

  const interpolated = interpolate(yaml.value, options.env);
  const failed = new Set(interpolated.failedPaths.map(formatIssuePath));
  const issues = [...interpolated.issues];
  const warnings = [...yaml.warnings];
  const mask = (list: ConfigIssue[]) => maskSubstitutions(list, interpolated.substitutions, interpolated.value);

  const parsed = ConfigFile.safeParse(interpolated.value);
  if (!parsed.success) {
    issues.push(
      ...schemaIssues(parsed.error.issues, interpolated.value, ConfigFile).filter((i) => !failed.has(i.path)),
    );
  }
  issues.push(...duplicateStackNames(interpolated.value));
  if (!parsed.success || issues.length) return { file, issues: mask(issues), warnings: mask(warnings) };

  const baseDir = resolve(options.baseDir);
  const discovery = await discoverStacks(parsed.data.discover, baseDir);
  issues.push(...discovery.issues);
  warnings.push(...discovery.warnings);
  const policies = await loadPolicies(parsed.data.policies, baseDir, parsed.data.approvers);
  issues.push(...policies.issues);
  issues.push(...gitSourceIssues(parsed.data));
  const config = withGitSources(
    parsed.data,
    resolveConfig(parsed.data, {
      ...(file ? { file } : {}),
      baseDir,
      discovered: discovery.stacks,
      cpus: availableParallelism(),
      policies: policies.rules,
    }),
  );
  config.interpolated = interpolated.substitutions.map((s) => s.value);
  warnings.push(...slackWarnings(config));
  issues.push(
    ...autoApplyIssues(config.stacks, (stack) => {
      const index = parsed.data.stacks.findIndex((entry) => entry.name === stack.name);
      return index >= 0 ? `stacks[${index}].mode` : `discover (stack ${stack.name}).mode`;
    }),
  );
  for (const [index, entry] of parsed.data.stacks.entries()) {
    if (config.stacks.find((s) => s.name === entry.name)?.git) continue; // a path inside the repository
    const warning = await stackDirWarning(`stacks[${index}].dir`, entry.name, resolve(baseDir, entry.dir));
    if (warning) warnings.push(warning);
  }
  return { file, ...(issues.length ? {} : { config }), issues: mask(issues), warnings: mask(warnings) };
}
