import { renderAck, renderNotAllowed } from '../../blocks/render-command-replies.js';
import type { ApprovalServiceDeps } from '../../../services/approval-deps.js';
import type { SlackDeps } from '../deps.js';
import type { CommandHandler } from './handler.js';
import { mayActOn, refuse } from './stack-rights.js';
import { unlockStack } from '../../../services/unlock-stack.js';

/**
 * `/drift unlock`: what `driftgate unlock` does, for a person who may approve the stack's plans. A lock
 * held by a check or apply running right now, in this process or another, is not stale: never broken.
 */
export const handleUnlock: CommandHandler<
  'unlock',
  ApprovalServiceDeps & Pick<SlackDeps, 'stack' | 'scheduler' | 'heldByAnother'>
> = async (deps, command, userId, tell) => {
  const stack = deps.stack(command.stack);
  if (!stack) return;
  if (!(await mayActOn(deps, stack, userId, 'unlock', tell))) return;
  if (deps.scheduler.status().running.includes(stack.name)) {
    const message = `A check or apply of ${stack.name} is running right now; its lock is not stale. Try again when it is done.`;
    await refuse(deps, stack.name, userId, 'unlock', 'running', message);
    return tell(renderNotAllowed(message));
  }
  const unlocked = await unlockStack(deps, stack.name, userId);
  if ('refused' in unlocked) {
    const message = `Run ${unlocked.refused.runId} of ${stack.name} is running in another driftgate process right now; its lock is not stale. Try again when it is done.`;
    await refuse(deps, stack.name, userId, 'unlock', 'running', message);
    return tell(renderNotAllowed(message));
  }
  const { blockedReason, brokenLock } = unlocked;
  const done = [
    blockedReason ? `lifted the block (${blockedReason})` : '',
    brokenLock ? `broke the lock of run ${brokenLock.runId}` : '',
  ].filter(Boolean);
  await tell(
    renderAck(
      done.length
        ? `${stack.name}: ${done.join(' and ')}. The next check plans it again.`
        : `${stack.name} was neither blocked nor locked; nothing to do.`,
    ),
  );
};
