/**
 * A run's interactive message: posted once, then re-rendered in place (chat.update) as the run moves.
 * Everything goes through the outbox, so Slack being down delays these calls but loses none of them,
 * and all of a stack's calls go out in order (one outbox key per stack).
 */
import type { DriftgateConfig } from '../../config/schema.js';
import type { Stack } from '../../domain/stack.js';
import { progressOf } from '../../domain/approvals/evaluate.js';
import { allRequirements, requirementFor } from '../../domain/approvals/requirement.js';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import type { Run } from '../../domain/run/model.js';
import type { Store } from '../../ports/store.js';
import { renderFullPlanFile } from '../blocks/render-full-plan-file.js';
import type { Attribution } from '../../domain/change-events/attribution.js';
import { type CommitLine, renderRunMessage } from '../blocks/render-run-message.js';
import type { ApprovalInfo, RunPhase } from '../blocks/run-phase.js';
import type { SlackMessage } from '../blocks/message.js';
import { UPLOAD_METHOD } from '../../services/outbox/deliver.js';
import { messagePlaceholder } from '../../services/outbox/placeholders.js';
import { channelFor, onCallMention } from '../routing.js';

/** What a run's message shows besides the run, as its check stored it (services/notify/run-content.ts). */
export interface RunContent {
  analysis(runId: string): Promise<PlanAnalysis | undefined>;
  policy(runId: string): Promise<PolicyEvaluation | undefined>;
  commits(runId: string): Promise<CommitLine[] | undefined>;
  attribution(runId: string): Promise<Attribution | undefined>;
}

export interface RunMessagesDeps {
  config: Pick<DriftgateConfig, 'slack' | 'approvers' | 'changeEvents'>;
  store: Store;
  content: RunContent;
  stack(name: string): Stack | undefined;
  /** Whether a GitHub integration can open remediation PRs (its button is shown only then). */
  canRemediate: boolean;
}

export interface PostOptions {
  thread?: { channel: string; ts: string };
  unless?: (tx: Store) => Promise<boolean>;
}

export interface RunMessages {
  /**
   * Posts the run's message to its stack's channel, or into `thread` (a digest's thread); false when it has
   * one, or when `unless` (asked in the post's transaction) says another process told it already.
   */
  post(run: Run, options?: PostOptions): Promise<boolean>;
  /**
   * Re-renders a message in place for `run` in `phase`. `messageOf` is the run whose message it is when
   * that is another (a re-plan takes over its predecessor's message). False when there is no message.
   */
  update(run: Run, phase: RunPhase, options?: { messageOf?: string }): Promise<boolean>;
  /** Posts the run's message unless it has one (an automatic apply may start before its alert went out). */
  ensurePosted(run: Run): Promise<void>;
  /** A reply in the run's thread (after its post, whenever that is delivered); `broadcast`: also to the channel. */
  reply(run: Run, message: SlackMessage, options?: { broadcast?: boolean }): Promise<void>;
  /** The whole masked plan as a file in the run's thread. */
  uploadPlan(run: Run, analysis?: PlanAnalysis): Promise<void>;
  /** The channel a stack's messages go to. */
  channelOf(stackName: string): string;
  approvalInfo(run: Run, policy?: PolicyEvaluation): Promise<ApprovalInfo | undefined>;
}

export const stackKey = (stack: string) => `stack:${stack}`;

export function createRunMessages(deps: RunMessagesDeps): RunMessages {
  const slack = deps.config.slack;
  const stackOf = (run: Run) => deps.stack(run.stack);

  async function approvalInfo(run: Run, policy?: PolicyEvaluation): Promise<ApprovalInfo | undefined> {
    const stack = stackOf(run);
    const match = stack && requirementFor(stack, deps.config.approvers);
    if (!match) return undefined;
    const requirements = allRequirements(match, policy?.approvals);
    return {
      progress: progressOf(requirements, await deps.store.listApprovals(run.id)),
      groups: [...new Set(requirements.flatMap((r) => r.groups))],
    };
  }

  async function render(run: Run, phase: RunPhase, analysis?: PlanAnalysis) {
    const stack = stackOf(run);
    const plan = analysis ?? (await deps.content.analysis(run.id));
    if (!stack || !plan) return undefined;
    const mention = slack ? onCallMention(slack, stack) : undefined;
    const policy = await deps.content.policy(run.id);
    const approval = await approvalInfo(run, policy);
    const commits = await deps.content.commits(run.id);
    const remediation = run.fingerprint ? await deps.store.getRemediation(run.stack, run.fingerprint) : undefined;
    const attribution = plan.drift.length > 0 ? await deps.content.attribution(run.id) : undefined;
    const slackUsers = deps.config.changeEvents?.slackUsers;
    return renderRunMessage({
      stack: { name: stack.name, environment: stack.environment, mode: stack.mode },
      run,
      analysis: plan,
      phase,
      // Only drift of a stack from a GitHub repository can be codified.
      canRemediate: deps.canRemediate && run.kind === 'drift' && Boolean(stack.git?.repository),
      ...(remediation ? { remediationUrl: remediation.prUrl } : {}),
      ...(policy ? { policy } : {}),
      ...(approval ? { approval } : {}),
      ...(commits?.length ? { commits } : {}),
      ...(mention ? { mention } : {}),
      ...(attribution ? { attribution } : {}),
      ...(slackUsers ? { slackUsers } : {}),
    });
  }

  function channelOf(stackName: string): string {
    if (!slack) throw new Error('slack is not configured');
    return channelFor(slack, { name: stackName });
  }

  async function uploadPlan(run: Run, analysis?: PlanAnalysis): Promise<void> {
    const plan = analysis ?? (await deps.content.analysis(run.id));
    if (!plan) return;
    const file = renderFullPlanFile(run.stack, run, plan);
    const ref = messagePlaceholder(run.id);
    await deps.store.enqueue({
      key: stackKey(run.stack),
      method: UPLOAD_METHOD,
      payload: { channel: ref, thread_ts: ref, ...file },
    });
  }

  async function reply(run: Run, message: SlackMessage, options: { broadcast?: boolean } = {}): Promise<void> {
    const ref = messagePlaceholder(run.id);
    const broadcast = options.broadcast ? { reply_broadcast: true } : {};
    await deps.store.enqueue({
      key: stackKey(run.stack),
      method: 'chat.postMessage',
      payload: { channel: ref, thread_ts: ref, ...broadcast, ...message },
    });
  }

  async function post(run: Run, options: PostOptions = {}): Promise<boolean> {
    const analysis = await deps.content.analysis(run.id);
    const rendered = await render(run, { kind: 'awaiting' }, analysis);
    if (!rendered || !analysis) return false;
    const where = options.thread
      ? { channel: options.thread.channel, thread_ts: options.thread.ts }
      : { channel: channelOf(run.stack) };
    // Checked again after the awaits above, in one transaction with the post: the alert and an automatic
    // apply (or another process's digest) may both be telling it, and only one of them may find it untold.
    const posted = await deps.store.atomically(async (tx) => {
      if ((await tx.hasMessage(run.id)) || (await options.unless?.(tx))) return false;
      await tx.enqueue({
        key: stackKey(run.stack),
        method: 'chat.postMessage',
        payload: { ...where, ...rendered.message },
        recordMessageFor: run.id,
      });
      return true;
    });
    if (!posted) return false;
    // The message had to cut the diff: the whole plan goes to its thread.
    if (rendered.omittedResources > 0) await uploadPlan(run, analysis);
    // More changes to the drifted resources than the alert lists: all of them in its thread.
    if (rendered.changesThread) await reply(run, rendered.changesThread);
    return true;
  }

  return {
    channelOf,
    approvalInfo,
    uploadPlan,
    post,
    async ensurePosted(run) {
      await post(run);
    },
    async update(run, phase, options = {}) {
      const owner = options.messageOf ?? run.id;
      if (!(await deps.store.hasMessage(owner))) return false;
      const rendered = await render(run, phase);
      if (!rendered) return false;
      const ref = messagePlaceholder(owner);
      await deps.store.enqueue({
        key: stackKey(run.stack),
        method: 'chat.update',
        payload: { channel: ref, ts: ref, ...rendered.message },
        ...(owner !== run.id ? { recordMessageFor: run.id } : {}),
      });
      return true;
    },
    reply,
  };
}
