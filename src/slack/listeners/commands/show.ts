import { renderShow } from '../../blocks/render-show.js';
import { latestRunSummary } from '../../../services/status/run-summary.js';
import type { SlackDeps, ViewerDeps } from '../../slack-deps.js';
import { NOT_VISIBLE, VISIBILITY_UNKNOWN, renderCommandError } from '../../blocks/render-command-replies.js';
import { type CommandHandler, forStack } from './handler.js';

/** `/drift show`: the stack's latest run and what its plan found. */
export const handleShow: CommandHandler<'show', ViewerDeps & Pick<SlackDeps, 'stack'>> = forStack(
  async (deps, stack, _command, userId, tell) => {
    const visible = await deps.visibleTo(userId).catch(() => undefined);
    if (!visible) return tell(renderCommandError(VISIBILITY_UNKNOWN));
    if (!visible.has(stack.name)) return tell(renderCommandError(NOT_VISIBLE));
    const summary = await latestRunSummary(deps, stack.name);
    await tell(
      renderShow({ stack: { name: stack.name, environment: stack.environment, mode: stack.mode }, ...summary }),
    );
  },
);
