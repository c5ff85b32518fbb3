import type { Run } from '../../../domain/run/model.js';
import { openAlertFromDigest } from '../../../services/notify/open-alert.js';
import { renderAck } from '../../blocks/render-command-replies.js';
import type { SlackDeps } from '../../slack-deps.js';
import type { ButtonClick } from '../../payloads.js';
import type { Tell } from '../tell.js';
import { runOfClick } from './run-of-click.js';

/** A digest's Open button: the stack's own interactive message, posted in the digest's thread. */
export async function handleOpenStack(
  deps: Pick<SlackDeps, 'store' | 'stack' | 'messages' | 'now'>,
  click: ButtonClick,
  tell: Tell,
): Promise<void> {
  const found = await runOfClick(deps, click.value, tell);
  if (!found) return;
  const thread = click.message;
  const post = thread && ((run: Run) => deps.messages.post(run, { thread }));
  const opened = await openAlertFromDigest(deps, found.run, click.userId, post);
  if (opened.status === 'open') await tell(renderAck(`${opened.run.stack} is already open: see the digest's thread.`));
}
