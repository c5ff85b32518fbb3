import { renderOperatorRefusal, renderUnlocked } from '../../blocks/render-operator-replies.js';
import type { ApprovalServiceDeps } from '../../../services/approval/approval-deps.js';
import { unlockStack } from '../../../services/operator/unlock.js';
import type { SlackDeps } from '../../slack-deps.js';
import { type CommandHandler, forStack } from './handler.js';

/**
 * `/drift unlock`: what `driftgate unlock` does, for a person who may approve the stack's plans. A lock
 * held by a check or apply running right now, in this process or another, is not stale: never broken.
 */
export const handleUnlock: CommandHandler<
  'unlock',
  ApprovalServiceDeps & Pick<SlackDeps, 'stack' | 'scheduler' | 'heldByAnother'>
> = forStack(async (deps, stack, _command, userId, tell) => {
  const outcome = await unlockStack(
    { ...deps, runningHere: (name) => deps.scheduler.status().running.includes(name) },
    stack,
    { slackUser: userId },
  );
  await tell(
    outcome.status === 'refused' ? renderOperatorRefusal(stack.name, outcome) : renderUnlocked(stack.name, outcome),
  );
});
