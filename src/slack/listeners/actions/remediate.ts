import { DriftgateError, failureReason } from '../../../domain/errors.js';
import { slackPermalink } from '../../message-links.js';
import { remediationRefusal } from '../../../services/remediation/open-remediation-pr.js';
import { remediateRun } from '../../../services/remediation/remediate-run.js';
import { renderAck, renderCommandError, renderNotAllowed } from '../../blocks/render-command-replies.js';
import { renderOperatorRefusal } from '../../blocks/render-operator-replies.js';
import { operatorRefusal, refuseAct } from '../../../services/operator/rights.js';
import type { SlackDeps } from '../../slack-deps.js';
import type { ButtonClick } from '../../payloads.js';
import type { Tell } from '../tell.js';
import { runOfClick } from './run-of-click.js';

/**
 * Open remediation PR, after the ack. It writes to the stack's repository, so it takes someone who may
 * approve the stack's plans; remediateRun opens it as exclusive work on the stack, and the notifier shows
 * what came of it in the alert's thread. A failure is told to the person who clicked.
 */
export async function handleRemediate(deps: SlackDeps, click: ButtonClick, tell: Tell): Promise<void> {
  const remediation = deps.remediation;
  if (!remediation) {
    await tell(
      renderNotAllowed(
        'Remediation pull requests need a GitHub integration (GITHUB_TOKEN or a GitHub App), and none is configured for driftgate.',
      ),
    );
    return;
  }
  const found = await runOfClick(deps, click.value, tell);
  if (!found) return;
  const { run, stack } = found;
  const refusal = remediationRefusal(stack, run);
  const refused = refusal
    ? await refuseAct(deps, stack.name, click.userId, 'remediate', 'unavailable', refusal)
    : await operatorRefusal(deps, stack, click.userId, 'remediate');
  if (refused) {
    await tell(renderOperatorRefusal(stack.name, refused));
    return;
  }

  await tell(renderAck(`Writing the drift of ${stack.name} into its code; the PR link follows in the alert's thread.`));
  const message = await deps.store.getMessage(run.id);
  const workspace = deps.workspaceUrl();
  try {
    await remediateRun(
      { ...remediation, bus: deps.bus, exclusive: deps.scheduler.exclusive, checkNow: checkNow(deps) },
      stack,
      run,
      {
        actor: click.userId,
        requestedBy: click.userName ? `@${click.userName} in Slack` : `Slack user ${click.userId}`,
        ...(message && workspace ? { threadUrl: slackPermalink(workspace, message) } : {}),
      },
    );
  } catch (err) {
    const reason = failureReason(err);
    if (!(err instanceof DriftgateError))
      deps.logger.error({ err, runId: run.id, stack: stack.name }, 'remediation failed');
    else deps.logger.warn({ runId: run.id, stack: stack.name, error: reason }, 'remediation failed');
    await tell(renderCommandError(`No remediation PR for ${stack.name}: ${reason}`));
  }
}

const checkNow = (deps: Pick<SlackDeps, 'scheduler'>) => (stack: string) => deps.scheduler.request(stack, 'manual');
