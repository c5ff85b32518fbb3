import { DriftgateError, errorMessage, failureReason } from '../../../domain/errors.js';
import { slackPermalink } from '../../message-links.js';
import {
  openRemediationPr,
  remediationRefusal,
  type RemediationOutcome,
} from '../../../services/open-remediation-pr.js';
import { renderAck, renderCommandError, renderNotAllowed } from '../../blocks/render-command-replies.js';
import {
  renderNothingToCodify,
  renderRemediationMerged,
  renderRemediationOpened,
} from '../../blocks/render-remediation.js';
import { renderOperatorRefusal } from '../../blocks/render-operator-replies.js';
import { operatorRefusal, refuseAct } from '../../../services/operator/rights.js';
import type { SlackDeps } from '../deps.js';
import type { ButtonClick } from '../../payloads.js';
import type { Tell } from '../tell.js';
import { runOfClick } from './run-of-click.js';

/**
 * Open remediation PR, after the ack. It writes to the stack's repository, so it takes someone who may
 * approve the stack's plans; it runs as exclusive work on the stack (its worktree and terraform init never
 * beside a check), which also makes a double click find the PR the first one opened.
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
  let outcome: RemediationOutcome;
  try {
    outcome = await deps.scheduler.exclusive(stack.name, (signal) =>
      openRemediationPr(remediation, stack, run, {
        actor: click.userId,
        requestedBy: click.userName ? `@${click.userName} in Slack` : `Slack user ${click.userId}`,
        ...(message && workspace ? { threadUrl: slackPermalink(workspace, message) } : {}),
        signal,
      }),
    );
  } catch (err) {
    const reason = failureReason(err);
    if (!(err instanceof DriftgateError))
      deps.logger.error({ err, runId: run.id, stack: stack.name }, 'remediation failed');
    else deps.logger.warn({ runId: run.id, stack: stack.name, error: reason }, 'remediation failed');
    await deps.store.appendAudit({
      at: deps.now(),
      actor: click.userId,
      action: 'remediation_failed',
      runId: run.id,
      stack: stack.name,
      detail: { error: reason },
    });
    await tell(renderCommandError(`No remediation PR for ${stack.name}: ${reason}`));
    return;
  }

  switch (outcome.status) {
    case 'opened':
    case 'existing': {
      const current = (await deps.store.getRun(run.id)) ?? run;
      await deps.messages.update(current, { kind: 'awaiting' });
      await deps.messages.reply(
        current,
        renderRemediationOpened(outcome.record, click.userId, outcome.status === 'existing'),
      );
      return;
    }
    case 'merged':
      await deps.messages.reply(run, renderRemediationMerged(outcome.record, click.userId));
      // The merge may have resolved the drift: find out now rather than at the next scheduled check.
      deps.scheduler
        .request(stack.name, 'manual')
        .catch((err: unknown) =>
          deps.logger.warn(
            { stack: stack.name, error: errorMessage(err) },
            'check after a merged remediation PR failed',
          ),
        );
      return;
    case 'nothing_to_codify':
      await deps.store.appendAudit({
        at: deps.now(),
        actor: click.userId,
        action: 'remediation_nothing_to_codify',
        runId: run.id,
        stack: stack.name,
        detail: { left: outcome.skipped.length },
      });
      await deps.messages.reply(run, renderNothingToCodify(stack.name, outcome.skipped));
      return;
  }
}
