import { UNMATCHED_LIMITS } from '../../../domain/change-events/unmatched.js';
import type { ApprovalServiceDeps } from '../../../services/approval/approval-deps.js';
import { renderCommandError } from '../../blocks/render-command-replies.js';
import { renderUnmatchedChanges } from '../../blocks/render-unmatched-changes.js';
import type { SlackDeps } from '../../slack-deps.js';
import type { CommandHandler } from './handler.js';
import { mayApproveAnyStack } from './stack-rights.js';

/** The changes one answer lists; the rest of the week's are counted under them. */
export const EVENTS_SHOWN = 20;

const DAY_MS = 86_400_000;

/**
 * `/drift events`: the latest cloud changes to resources no stack manages. Who changed what in which
 * account is not for every member of the workspace, so it takes someone who may approve a stack's plans.
 */
export const handleEvents: CommandHandler<'events', ApprovalServiceDeps & Pick<SlackDeps, 'config'>> = async (
  deps,
  _command,
  userId,
  tell,
) => {
  const changeEvents = deps.config.changeEvents;
  if (!changeEvents)
    return tell(
      renderCommandError('Cloud change events are not set up, so there is nothing to list: see docs/change-events.md.'),
    );
  if (!(await mayApproveAnyStack(deps, deps.config.stacks, userId, 'Listing cloud changes', tell))) return;
  const since = new Date(deps.now().getTime() - UNMATCHED_LIMITS.ageMs);
  const { changes, counted } = await deps.store.listUnmatchedChanges({ since, limit: EVENTS_SHOWN });
  await tell(
    renderUnmatchedChanges(
      { changes, counted, days: UNMATCHED_LIMITS.ageMs / DAY_MS },
      { slackUsers: changeEvents.slackUsers },
    ),
  );
};
