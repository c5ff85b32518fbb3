import type { DriftgateConfig } from '../config/schema.js';
import type { Stack } from '../domain/stack.js';
import type { StackLock } from '../domain/run/model.js';
import type { ApprovalServiceDeps } from '../services/approval/approval-deps.js';
import type { ApproveAndApplyDeps } from '../services/approval/approve-and-apply.js';
import type { CheckOutcome } from '../services/check/check-stack.js';
import type { RemediationDeps } from '../services/remediation/open-remediation-pr.js';
import type { Scheduler } from '../services/runtime/scheduler.js';
import type { SlackDirectory } from '../ports/slack-directory.js';
import type { SlackApi } from '../ports/slack-api.js';
import type { RunMessages } from './notifier/run-messages.js';
import type { Jobs } from '../services/runtime/jobs.js';
import type { PoolHealth } from '../domain/pool/pool-health.js';

/**
 * Everything the Slack listeners may use, built once by the composition root (src/app/slack-app.ts).
 * It is the approval services' deps (so a handler passes itself to approveAndApply), plus the Slack side.
 * Each handler takes the `Pick<>` of it that it uses.
 */
export interface SlackDeps extends ApproveAndApplyDeps {
  config: Pick<DriftgateConfig, 'stacks' | 'slack' | 'approvers' | 'changeEvents'> & {
    defaults: Pick<DriftgateConfig['defaults'], 'notConvergingAfter'>;
  };
  /** `/drift check` queues checks; `/drift status` reads what runs. */
  scheduler: Pick<Scheduler<CheckOutcome>, 'request' | 'exclusive' | 'status'>;
  messages: RunMessages;
  /** Work handed off after ack(). */
  jobs: Jobs;
  /** For calls that cannot wait in the outbox: views.open must use its trigger_id within 3 s. */
  api: SlackApi;
  stack(name: string): Stack | undefined;
  /** Guests and channel members, for who may read which stack. */
  directory: SlackDirectory;
  /**
   * The configured stacks `userId` may read, by `slack.visibility` (services/status/visibility.ts). Rejects
   * when Slack cannot say: the caller shows nothing rather than guess.
   */
  visibleTo(userId: string): Promise<Set<string>>;
  /** Set when GitHub is configured: remediation PRs. */
  remediation?: RemediationDeps;
  /** The workspace's address for links to messages, once `auth.test` has answered. */
  workspaceUrl(): string | undefined;
  /** Set with `runners: {type: workers}`: each worker pool's health, for `/drift status` and the App Home. */
  pools?: () => Promise<PoolHealth[]>;
  /** Whether a live process other than this one holds a stack lock: `/drift unlock` leaves it. */
  heldByAnother(lock: StackLock): boolean;
}

/** What a reply that shows a stack's details needs: who may see it, and how to read it. */
export type ViewerDeps = ApprovalServiceDeps & Pick<SlackDeps, 'visibleTo' | 'directory' | 'config' | 'messages'>;
