import { NOT_VISIBLE, VISIBILITY_UNKNOWN, renderAck, renderCommandError } from '../../blocks/render-command-replies.js';
import { renderShow } from '../../blocks/render-show.js';
import type { SlackDeps, ViewerDeps } from '../../slack-deps.js';
import { postPlanFileOnce } from '../../../services/notify/plan-file.js';
import { runSummary } from '../../../services/status/run-summary.js';
import type { ButtonClick } from '../../payloads.js';
import type { Tell } from '../tell.js';
import { runOfClick } from './run-of-click.js';

/** View full plan: the whole masked plan as a file in the run's thread (once), or a summary where there is no thread. */
export async function handleViewPlan(
  deps: ViewerDeps & Pick<SlackDeps, 'stack'>,
  click: ButtonClick,
  tell: Tell,
): Promise<void> {
  const found = await runOfClick(deps, click.value, tell);
  if (!found) return;
  const { run, stack } = found;
  if (!(await deps.store.hasMessage(run.id))) {
    // No thread to post into: the summary goes to the clicker alone, if they may read the stack.
    const visible = await deps.visibleTo(click.userId).catch(() => undefined);
    if (!visible) return tell(renderCommandError(VISIBILITY_UNKNOWN));
    if (!visible.has(stack.name)) return tell(renderCommandError(NOT_VISIBLE));
    const summary = await runSummary(deps, run);
    return tell(
      renderShow({ stack: { name: stack.name, environment: stack.environment, mode: stack.mode }, ...summary }),
    );
  }
  const posted = await postPlanFileOnce(deps, run, click.userId, () => deps.messages.uploadPlan(run));
  await tell(
    renderAck(
      `The full plan of ${stack.name} (sensitive values masked) is ${posted ? 'already' : 'being posted'} in the message's thread.`,
    ),
  );
}
