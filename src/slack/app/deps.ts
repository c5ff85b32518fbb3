import type { SqliteStore } from '../../adapters/store/open-sqlite-store.js';
import type { DriftgateConfig } from '../../config/schema.js';
import type { Stack } from '../../domain/stack.js';
import type { Logger } from '../../logging/logger.js';
import type { ApprovalServiceDeps } from '../../services/approval-deps.js';
import type { RemediationDeps } from '../../services/open-remediation-pr.js';
import type { CheckOutcome } from '../../services/check-stack.js';
import type { Scheduler } from '../../services/scheduler.js';
import type { SlackApi } from '../api.js';
import type { RunMessages } from '../notifier/run-messages.js';
import type { Jobs } from './jobs.js';
import type { RunApplier } from './apply-approved.js';

/** Everything the Slack listeners use; built once by createSlackApp. */
export interface SlackAppDeps {
  config: DriftgateConfig;
  /** The run and approval services' deps (store, artifacts, terraform, usergroups, approvers, clock…). */
  services: ApprovalServiceDeps;
  /** Runs and Slack-side state (approvals, messages, outbox, silences) in one SQLite file. */
  store: SqliteStore;
  scheduler: Scheduler<CheckOutcome>;
  messages: RunMessages;
  applier: RunApplier;
  /** Work handed off after ack(). */
  jobs: Jobs;
  /** For calls that cannot wait in the outbox: views.open must use its trigger_id within 3 s. */
  api: SlackApi;
  logger: Logger;
  now: () => Date;
  stack(name: string): Stack | undefined;
  /** Set when GitHub is configured: remediation PRs. */
  remediation?: RemediationDeps;
  /** The workspace's address for links to messages, once `auth.test` has answered. */
  workspaceUrl(): string | undefined;
}
