import type { App } from '@slack/bolt';
import { errorMessage, StoreUnavailableError } from '../../../domain/errors.js';
import {
  VISIBILITY_UNKNOWN,
  renderCommandError,
  renderHelp,
  renderStoreUnavailable,
} from '../../blocks/render-command-replies.js';
import { renderStatus } from '../../blocks/render-status.js';
import type { SlackDeps } from '../../slack-deps.js';
import { stackRows } from '../../stack-rows.js';
import { parseDriftCommand, type DriftCommand } from './parse.js';
import { SlashCommand } from '../../payloads.js';
import { ackThenRead } from '../acked-payload.js';
import { tellClicker, type Tell } from '../tell.js';
import type { CommandHandler } from './handler.js';
import { readPoolsView } from '../../pools-view.js';
import { handleCheck } from './check.js';
import { handleEvents } from './events.js';
import { handleShow } from './show.js';
import { handleSilence, handleUnsilence } from './silence.js';
import { handleUnlock } from './unlock.js';

type Handlers = { [K in DriftCommand['kind']]: CommandHandler<K> };

const HANDLERS: Handlers = {
  status: async (deps, _command, userId, tell) => {
    const visible = await deps.visibleTo(userId).catch(() => undefined);
    if (!visible) return tell(renderCommandError(VISIBILITY_UNKNOWN));
    const stacks = deps.config.stacks.filter((s) => visible.has(s.name));
    const rows = await stackRows(deps.store, stacks, deps.now(), deps.config.defaults.notConvergingAfter);
    await tell(renderStatus(rows, deps.config.stacks.length - stacks.length, await readPoolsView(deps)));
  },
  help: async (_deps, _command, _userId, tell) => tell(renderHelp()),
  error: async (_deps, command, _userId, tell) => tell(renderCommandError(command.message, command.suggestions)),
  check: handleCheck,
  show: handleShow,
  silence: handleSilence,
  unsilence: handleUnsilence,
  unlock: handleUnlock,
  events: handleEvents,
};

async function runCommand(deps: SlackDeps, command: DriftCommand, userId: string, tell: Tell): Promise<void> {
  const handler = HANDLERS[command.kind] as CommandHandler<DriftCommand['kind']>;
  try {
    await handler(deps, command, userId, tell);
  } catch (err) {
    if (err instanceof StoreUnavailableError) {
      deps.logger.warn({ err: errorMessage(err), subcommand: command.kind, user: userId }, '/drift: store down');
      await tell(renderStoreUnavailable());
      return;
    }
    // A bug or an outage, not the user's mistake: the details go to the log, the user learns it failed.
    deps.logger.error({ err: errorMessage(err), subcommand: command.kind, user: userId }, '/drift failed');
    await tell(renderCommandError(`/drift ${command.kind} failed on driftgate's side; the details are in its log.`));
  }
}

/** `/drift`: ack at once (Slack waits 3 s), check the payload, and hand the work to the job queue. */
export function register(app: App, deps: SlackDeps): void {
  app.command(
    '/drift',
    ackThenRead(deps, SlashCommand, '/drift payload', ({ userId, text, responseUrl }, respond) => {
      const command = parseDriftCommand(
        text,
        deps.config.stacks.map((s) => s.name),
      );
      const tell = tellClicker(deps, { userId, inView: false }, responseUrl ? respond : undefined);
      deps.jobs.run(`/drift ${command.kind}`, () => runCommand(deps, command, userId, tell));
    }),
  );
}
