import { renderSilenced, renderUnsilenced } from '../../blocks/render-operator-replies.js';
import type { ApprovalServiceDeps } from '../../../services/approval/approval-deps.js';
import { silenceStack, unsilenceStack } from '../../../services/operator/silence.js';
import type { SlackDeps } from '../../slack-deps.js';
import { type CommandHandler, forStack } from './handler.js';

/**
 * `/drift silence`: no alerts for the stack until the time is up (checks still run and are recorded).
 * Silencing hides drift, so it takes someone who may approve the stack's plans; unsilencing anyone may.
 */
export const handleSilence: CommandHandler<'silence', ApprovalServiceDeps & Pick<SlackDeps, 'stack'>> = forStack(
  async (deps, stack, command, userId, tell) => {
    const outcome = await silenceStack(deps, stack, userId, {
      durationMs: command.durationMs,
      ...(command.reason ? { reason: command.reason } : {}),
    });
    await tell(renderSilenced(stack.name, outcome));
  },
);

/** `/drift unsilence`: alerts again from the next check on. */
export const handleUnsilence: CommandHandler<'unsilence', ApprovalServiceDeps & Pick<SlackDeps, 'stack'>> = async (
  deps,
  command,
  userId,
  tell,
) => {
  const { wasSilenced } = await unsilenceStack(deps, command.stack, userId);
  await tell(renderUnsilenced(command.stack, wasSilenced));
};
