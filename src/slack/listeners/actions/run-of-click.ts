import type { Stack } from '../../../domain/stack.js';
import type { Run } from '../../../domain/run/model.js';
import { renderCommandError } from '../../blocks/render-command-replies.js';
import type { SlackDeps } from '../../slack-deps.js';
import type { Tell } from '../tell.js';

/** The run a button's value names and its stack, or a told error when there is none. */
export async function runOfClick(
  deps: Pick<SlackDeps, 'store' | 'stack'>,
  runId: string | undefined,
  tell: Tell,
): Promise<{ run: Run; stack: Stack } | undefined> {
  const run = runId ? await deps.store.getRun(runId) : undefined;
  const stack = run && deps.stack(run.stack);
  if (!run || !stack) {
    await tell(
      renderCommandError(
        run ? `stack ${run.stack} is no longer in driftgate's config` : `there is no run ${runId ?? '(none)'}`,
      ),
    );
    return undefined;
  }
  return { run, stack };
}
