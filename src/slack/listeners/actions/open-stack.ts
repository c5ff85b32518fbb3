import type { Run } from '../../../domain/run/model.js';
import { renderAck } from '../../blocks/render-command-replies.js';
import type { SlackDeps } from '../deps.js';
import type { ButtonClick } from '../../payloads.js';
import type { Tell } from '../tell.js';
import { runOfClick } from './run-of-click.js';

/** The newest run that replaced this one: a digest lists runs that later checks may have superseded. */
async function latest(deps: Pick<SlackDeps, 'store'>, run: Run): Promise<Run> {
  let current = run;
  for (let i = 0; i < 100 && current.state === 'superseded' && current.supersededBy; i++) {
    const next = await deps.store.getRun(current.supersededBy);
    if (!next) break;
    current = next;
  }
  return current;
}

/** A digest's Open button: the stack's own interactive message, posted in the digest's thread. */
export async function handleOpenStack(
  deps: Pick<SlackDeps, 'store' | 'stack' | 'messages' | 'now'>,
  click: ButtonClick,
  tell: Tell,
): Promise<void> {
  const found = await runOfClick(deps, click.value, tell);
  if (!found) return;
  const run = await latest(deps, found.run);
  if (await deps.store.hasMessage(run.id))
    return tell(renderAck(`${run.stack} is already open: see the digest's thread.`));
  if (!click.message) return;
  await deps.messages.post(run, { thread: click.message });
  await deps.store.appendAudit({
    at: deps.now(),
    actor: click.userId,
    action: 'alert_opened',
    runId: run.id,
    stack: run.stack,
  });
}
