/**
 * `driftgate approve|reject RUN --as USER`: the same approve, reject and apply use cases a Slack click
 * reaches, wired for one decision in this process. Only the way in differs: who decided is claimed with
 * `--as` (and checked against the approvers rules like a click), and the audit says which OS user did.
 */
import { createGitHubClient } from '../adapters/github/client.js';
import { githubSettingsFor } from '../adapters/github/env.js';
import { type Env, readEnvironment } from '../config/environment.js';
import type { DriftgateConfig } from '../config/schema.js';
import { ConfigError, ExternalServiceError } from '../domain/errors.js';
import type { Run } from '../domain/run/model.js';
import type { Stack } from '../domain/stack.js';
import type { Logger } from '../logging/logger.js';
import { applyApprovedRun, type ApplyDeps } from '../services/apply/apply-approved-run.js';
import type { ApplyOutcome } from '../services/apply/apply-saved-plan.js';
import type { ApprovalServiceDeps } from '../services/approval/approval-deps.js';
import { approveAndApply } from '../services/approval/approve-and-apply.js';
import type { ApproveOutcome } from '../services/approval/approve-run.js';
import type { DecisionRefusal } from '../services/approval/approval-checks.js';
import { rejectRun, type RejectOutcome } from '../services/approval/reject-run.js';
import { waitForStackLock } from '../services/runtime/stack-lock.js';
import { createSlackApi } from '../adapters/slack/api.js';
import { createUsergroupResolver, type SlackCall } from '../adapters/slack/usergroups.js';
import { approvalDeps } from './approval-deps.js';
import { type AppContext, createAppContext, type AppContextOptions } from './context.js';
import { runMessaging } from './run-messaging.js';

export type { ApplyOutcome, DecisionRefusal };

export interface CliDecisions {
  /** The approval, and the apply when it was the last one needed. */
  approve(runId: string, userId: string): Promise<{ outcome: ApproveOutcome; applied?: ApplyOutcome }>;
  reject(runId: string, userId: string, reason?: string): Promise<RejectOutcome>;
  /** Stacks whose plan expired on the way: a fresh one is needed (serve's schedule, or `driftgate check`). */
  checksAsked(): string[];
  close(): Promise<void>;
}

export interface CliDecisionOptions extends Pick<AppContextOptions, 'env' | 'logDestination' | 'log'> {
  /** Who is at the terminal, for the audit: `cli:<OS user>`. */
  via: string;
  verb: 'approve' | 'reject';
}

/** Refused unless the config allows CLI decisions, and an apply needs terraform in this process. */
function refusal(config: DriftgateConfig, verb: CliDecisionOptions['verb']): ConfigError | undefined {
  if (!config.approvers?.allowCli)
    return new ConfigError(
      [
        {
          path: 'approvers.allowCli',
          message: `is ${config.approvers ? 'false (the default)' : 'not set (no approvers section)'}: decisions are taken in Slack only, where Slack proves who clicked. Set approvers.allowCli: true to let operators ${verb} with --as (checked against the same rules, audited with their OS user)`,
        },
      ],
      config.file,
    );
  if (verb === 'approve' && config.runners?.type === 'workers')
    return new ConfigError(
      [
        {
          path: 'runners.type',
          message:
            "is workers: an approval's apply runs on the pool's workers, which serve hands it to; approve from Slack",
        },
      ],
      config.file,
    );
  return undefined;
}

/** Slack user groups are read with the bot token when there is one; without it only `users` lists count. */
function usergroupCall(env: Env, logger: Logger): SlackCall {
  const { values, issues } = readEnvironment(env, ['SLACK_BOT_TOKEN', 'SLACK_API_URL']);
  const { SLACK_BOT_TOKEN: token, SLACK_API_URL: apiUrl } = values;
  if (token && !issues.length) return createSlackApi({ token, logger, ...(apiUrl ? { apiUrl } : {}) }).call;
  const why = issues.length
    ? issues.map((i) => `${i.path.replace(/^env\./, '')} ${i.message}`).join('; ')
    : 'SLACK_BOT_TOKEN is not set';
  return async () => {
    throw new ExternalServiceError('slack', `${why}, so the members of Slack user groups cannot be read`, false);
  };
}

export async function openCliDecisions(config: DriftgateConfig, options: CliDecisionOptions): Promise<CliDecisions> {
  const refused = refusal(config, options.verb);
  if (refused) throw refused;
  const context = await createAppContext(config, options);
  const asked = new Set<string>();
  const requestCheck = (name: string) => void asked.add(name);
  const deps = decisionDeps(context, config, options, requestCheck);
  // With Slack configured, the run's message and the apply's outcome are queued in the outbox as a click's
  // would be; serve delivers them.
  const notifier = config.slack ? runMessaging(context, { canRemediate: false }).notifier : undefined;
  const applies = applyDeps(context, requestCheck);

  return {
    async approve(runId, userId) {
      const target = await findRun(context, runId);
      if ('status' in target) return { outcome: target };
      const apply = (run: Run, actor: string) => applyApprovedRun(applies, run, actor);
      const { outcome, applying } = await approveAndApply({ ...deps, apply }, target.stack, runId, userId);
      const applied = await applying;
      return { outcome, ...(applied ? { applied } : {}) };
    },
    async reject(runId, userId, reason) {
      const target = await findRun(context, runId);
      if ('status' in target) return target;
      return await rejectRun(deps, target.stack, runId, userId, reason);
    },
    checksAsked: () => [...asked],
    async close() {
      await notifier?.flush();
      notifier?.stop();
      await context.close();
    },
  };
}

/** The approve and reject use cases' deps: who may decide is checked as for a click. */
function decisionDeps(
  context: AppContext,
  config: DriftgateConfig,
  options: CliDecisionOptions,
  requestCheck: (name: string) => void,
): ApprovalServiceDeps {
  const { logger, git } = context;
  const githubSettings = githubSettingsFor(options.env);
  const github = githubSettings ? createGitHubClient(githubSettings, { logger }) : undefined;
  return {
    ...context.deps,
    ...approvalDeps(context, {
      usergroups: createUsergroupResolver({
        call: usergroupCall(options.env, logger),
        ttlMs: config.slack?.usergroupCacheTtl ?? 60_000,
        now: context.deps.now,
        logger,
      }),
      requestCheck,
      git,
      ...(github ? { github } : {}),
      via: options.via,
    }),
  };
}

/** The apply's deps, in this process. */
function applyDeps(context: AppContext, requestCheck: (name: string) => void): ApplyDeps {
  return {
    ...context.deps,
    git: context.git,
    requestCheck,
    stack: context.stack,
    // A check of the stack by serve holds its lock for a while: the apply waits for it, as serve's own would.
    exclusive: async (name, work) => {
      await waitForStackLock(context.deps, name, context.deps.timeouts.plan, new AbortController().signal);
      return await work();
    },
  };
}

/** The run decided on and its stack, or why there is nothing to decide. */
async function findRun(context: AppContext, runId: string): Promise<{ run: Run; stack: Stack } | DecisionRefusal> {
  const run = await context.store.getRun(runId);
  const stack = run && context.stack(run.stack);
  if (run && stack) return { run, stack };
  const message = run ? `stack ${run.stack} is no longer in driftgate's config` : `there is no run ${runId}`;
  return { status: 'refused', reason: 'not_found', message };
}
