import { pagerdutySettingsFor } from '../../adapters/pagerduty/env.js';
import { githubSettingsFor } from '../../adapters/github/env.js';
import type { GitHubClientOptions } from '../../adapters/github/octokit.js';
import { repositoryAccess } from '../../adapters/github/repository-access.js';
import { detectTerraform } from '../../adapters/terraform/binary.js';
import type { DriftgateConfig } from '../../config/schema.js';
import { createLogger } from '../../logging/logger.js';
import { createSlackApi } from '../../adapters/slack/api.js';
import { slackHost, slackSettingsFor } from '../../config/slack-settings.js';
import { createAppContext, ownSecretNames, type AppContext } from '../context.js';
import { PostgresConnectError, serverOf } from '../../adapters/store/postgres/errors.js';
import { DataDirError } from '../../domain/errors.js';
import { checkArtifactStore } from './artifact-check.js';
import { checkChangeEvents } from './change-events-checks.js';
import { type CheckResult, fail, ok, reason, skip } from './check-result.js';
import { checkGitHub } from './github-checks.js';
import { checkPagerduty, checkWebhookSecret } from './secret-checks.js';
import { checkSlack, checkSocketMode, slackSettingsCheck } from './slack-checks.js';
import { checkRunAs, checkStacks, checkTerraformBinary, checkWritableDir } from './terraform-checks.js';

export interface DoctorOptions {
  env: Record<string, string | undefined>;
  /** GitHub client tuning (retry waits); tests shorten them. */
  github?: Omit<GitHubClientOptions, 'logger'>;
  /** Per-request timeout of Slack calls; default 10 s. */
  slackTimeoutMs?: number;
  /** Called with each result as soon as it is known (already masked), so a long run shows progress. */
  onResult?: (result: CheckResult) => void;
}

/**
 * Never in a doctor line, whatever a service echoes back: driftgate's own secrets, the artifact store's
 * AWS keys, and (through the context) every stack's config secrets.
 */
function secretMasker(config: DriftgateConfig, env: Record<string, string | undefined>, context?: AppContext) {
  const names = [...ownSecretNames(config), 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];
  const values = names.map((n) => env[n]).filter((v): v is string => Boolean(v) && v!.length >= 4);
  return (text: string) => {
    let out = context ? context.deps.secrets.redact(text) : text;
    for (const value of values) out = out.split(value).join('[secret]');
    return out;
  };
}

/**
 * `driftgate doctor`: every part of a deployment checked from where it runs, with the real adapters
 * (terraform runner, artifact store, Slack Web API client, GitHub client) built from the config and the
 * environment as `serve` builds them. One result per check; nothing here throws for a failed check.
 */
export async function runDoctor(config: DriftgateConfig, options: DoctorOptions): Promise<CheckResult[]> {
  const { env } = options;
  const runAs = await checkRunAs(config);
  // The rest is still checked, with terraform as this process's user, when it cannot switch.
  const { runAs: _, ...withoutRunAs } = config;
  const checked = runAs?.status === 'fail' ? withoutRunAs : config;
  const context = await createAppContext({ ...checked, log: { level: 'silent' } }, { env }).catch((err: unknown) =>
    err instanceof PostgresConnectError || err instanceof DataDirError ? err : new Error(reason(err)),
  );
  const built = context instanceof Error ? undefined : context;
  const mask = secretMasker(config, env, built);
  const all: CheckResult[] = [];
  const results = {
    push(...found: CheckResult[]) {
      for (const r of found) {
        const masked = { ...r, message: mask(r.message), ...(r.status === 'fail' ? { fix: mask(r.fix) } : {}) };
        all.push(masked);
        options.onResult?.(masked);
      }
    },
  };
  try {
    const terraform = built?.deps.terraform ?? {
      version: () => detectTerraform(config.terraform.binary, definedOnly(env), config.baseDir),
    };
    const binary = await checkTerraformBinary(terraform, config.terraform.binary);
    results.push(binary);
    results.push(...dataDirAndStore(config, context));
    results.push(await checkWritableDir('plugin cache', config.terraform.pluginCacheDir, 'terraform.pluginCacheDir'));
    if (runAs) results.push(runAs);
    const failedPart = config.store?.type === 'postgres' ? 'the store' : 'the data dir';
    if (!built) results.push(skip('stacks', `not checked: ${failedPart} failed`));
    else if (binary.status !== 'ok') results.push(skip('stacks', 'not checked: no terraform binary'));
    else results.push(...(await checkStacks(built.deps.terraform, config, env)));
    results.push(
      built
        ? await checkArtifactStore(built.deps.artifacts, config.artifacts)
        : skip('artifacts', `not checked: ${failedPart} failed`),
    );

    const slack = slackSettingsCheck(config, env, slackSettingsFor);
    if (slack.result) results.push(slack.result);
    if (slack.settings) {
      const settings = slack.settings;
      const api = (token: string) =>
        createSlackApi({
          token,
          ...(settings.apiUrl ? { apiUrl: settings.apiUrl } : {}),
          logger: built?.logger ?? createLogger({ level: 'silent', redact: (t) => t }),
          timeoutMs: options.slackTimeoutMs ?? 10_000,
        });
      results.push(...(await checkSlack(api(settings.botToken), config, slackHost(settings))));
      if (settings.mode === 'socket') results.push(await checkSocketMode(api(settings.appToken)));
    }
    results.push(
      ...(await checkGitHub(config, env, {
        settingsFor: githubSettingsFor,
        access: (settings, repo) => repositoryAccess(settings, repo, options.github),
      })),
    );
    results.push(...checkPagerduty(config, env, pagerdutySettingsFor));
    results.push(checkWebhookSecret(env));
    results.push(...(await checkChangeEvents(config, env)));
  } finally {
    await built?.close();
  }
  return all;
}

/**
 * SQLite lives in the data dir, so one line says both open. A Postgres store is its own line: a server
 * that does not answer is fixed in Postgres or `store.url`, not in the data dir.
 */
function dataDirAndStore(config: DriftgateConfig, context: AppContext | Error): CheckResult[] {
  const built = !(context instanceof Error);
  if (config.store?.type !== 'postgres')
    return [
      built
        ? ok('data dir', `${config.dataDir} is writable and its store opens`)
        : context instanceof DataDirError
          ? fail('data dir', context.problem, context.fix)
          : fail(
              'data dir',
              `${config.dataDir} cannot be created or its store opened: ${context.message}`,
              'make dataDir writable by the user driftgate runs as, or set dataDir to a dir that is',
            ),
    ];
  if (context instanceof PostgresConnectError)
    return [
      skip('data dir', 'not checked: the store failed'),
      fail(
        'store',
        context.message,
        'start Postgres there, or correct store.url (the value of the variable it names): host, port, user, password, database',
      ),
    ];
  if (!built)
    return [
      fail(
        'data dir',
        `${config.dataDir} cannot be created or the store opened: ${context.message}`,
        'make dataDir writable by the user driftgate runs as, and check store.url',
      ),
    ];
  const server = serverOf(config.store.url);
  return [
    ok('data dir', `${config.dataDir} is writable`),
    ok(
      'store',
      `Postgres at ${server ? `${server.host}:${server.port}` : 'store.url'} answers; its schema is up to date`,
    ),
  ];
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
