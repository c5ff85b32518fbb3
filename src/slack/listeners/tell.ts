/**
 * Answers meant for one person (a refusal, a result): through the interaction's response_url as an
 * ephemeral message where there is one, on the App Home tab for clicks made there, else as an ephemeral
 * message in the run's channel. Failing to tell is logged: the action itself has already happened or not.
 */
import type { RespondFn } from '@slack/bolt';
import { errorMessage } from '../../domain/errors.js';
import type { SlackMessage } from '../blocks/message.js';
import type { SlackDeps } from '../slack-deps.js';
import { publishHome, type HomeDeps } from '../home-tab.js';
import { stackKey } from '../notifier/run-messages.js';

export type Tell = (message: SlackMessage) => Promise<void>;

export function tellClicker(
  deps: HomeDeps & Pick<SlackDeps, 'logger'>,
  click: { userId: string; inView: boolean },
  respond: RespondFn | undefined,
): Tell {
  return async (message) => {
    try {
      if (click.inView) await publishHome(deps, click.userId, message.text);
      else if (respond) await respond({ response_type: 'ephemeral', replace_original: false, ...message });
    } catch (err) {
      deps.logger.warn({ err: errorMessage(err), user: click.userId }, 'could not answer a Slack user');
    }
  };
}

/** An ephemeral message in the channel of a run's message (or its stack's channel), through the outbox. */
export function tellInChannel(
  deps: Pick<SlackDeps, 'store' | 'messages'>,
  userId: string,
  stack: string,
  runId: string | undefined,
): Tell {
  return async (message) => {
    const channel = (runId && (await deps.store.getMessage(runId))?.channel) || deps.messages.channelOf(stack);
    await deps.store.enqueue({
      key: stackKey(stack),
      method: 'chat.postEphemeral',
      payload: { channel, user: userId, ...message },
    });
  };
}
