/** The Block Kit renderers: pure functions from domain objects to Slack messages and views. */
export { blockKitBuilderUrl } from './block-kit-builder-url.js';
export { codeBlockTail, escapeCode, escapeMrkdwn, safeMention, userRef } from './escape.js';
export { formatDuration, type SlackMessage, type StackRef } from './message.js';
export { renderApplyOutput, type ApplyOutputInput } from './render-apply-output.js';
export { renderAck, renderCommandError, renderHelp, renderNotAllowed } from './render-command-replies.js';
export { renderDigest, type DigestEntry } from './render-digest.js';
export { renderFullPlanFile, type PlanFile } from './render-full-plan-file.js';
export { renderHome, type HomeInput, type PendingApprovalItem } from './render-home.js';
export { renderPlanFailed, type PlanFailedInput } from './render-plan-failed.js';
export { REJECT_REASON_MAX, renderRejectModal } from './render-reject-modal.js';
export { renderRunMessage, runTitle, type RunMessageInput } from './render-run-message.js';
export { poolBlocks, poolLine, type PoolsAt, type PoolsView } from './render-pools.js';
export { renderShow, type ShowInput } from './render-show.js';
export { renderStatus } from './render-status.js';
export { isAwaiting, phaseStatusLine, type ApprovalInfo, type RunPhase, type Verification } from './run-phase.js';
export type { StackStatusRow } from './status-blocks.js';
