/** The short ephemeral answers of `/drift`: help, errors, refusals and acknowledgements. */
import { code, escapeMrkdwn } from './escape.js';
import { fallbackText, section, type SlackMessage } from './message.js';

const COMMANDS: [string, string][] = [
  ['/drift', 'every stack with its state, last check, drift and pending approvals (same as `/drift status`)'],
  ['/drift check <stack|glob|all>', 'plan now; results go to the stack’s channel'],
  ['/drift show <stack>', 'the latest plan of a stack'],
  ['/drift silence <stack> <duration> [reason]', 'no alerts for a while, e.g. `2h`, `1d`'],
  ['/drift unsilence <stack>', 'alerts again'],
  ['/drift unlock <stack>', 'release a stack’s lock or block after an interrupted apply (approvers only)'],
  ['/drift events', 'the latest changes to cloud resources no stack manages (approvers only)'],
  ['/drift help', 'this help'],
];

export function renderHelp(): SlackMessage {
  const lines = COMMANDS.map(([usage, what]) => `${code(usage)} — ${what}`);
  return {
    text: 'driftgate commands',
    blocks: [
      section(`*driftgate* finds drift in Terraform stacks and applies only what was approved.\n\n${lines.join('\n')}`),
    ],
  };
}

export function renderCommandError(message: string, suggestions: readonly string[] = []): SlackMessage {
  const hint = suggestions.length ? `\nDid you mean ${suggestions.map((s) => code(s)).join(', ')}?` : '';
  const text = `:warning: ${escapeMrkdwn(message)}${hint}\nType \`/drift help\` for every command.`;
  return { text: fallbackText(message || 'That did not work'), blocks: [section(text)] };
}

/** The store did not answer: nothing happened, and the same action can simply be made again. */
export function renderStoreUnavailable(): SlackMessage {
  const message = 'driftgate cannot reach its store right now, so nothing was done. Try again in a minute.';
  return { text: fallbackText(message), blocks: [section(`:hourglass: ${message}`)] };
}

export function renderNotAllowed(message: string): SlackMessage {
  return { text: fallbackText(message || 'Not allowed'), blocks: [section(`:lock: ${escapeMrkdwn(message)}`)] };
}

export function renderAck(text: string): SlackMessage {
  return { text: fallbackText(text || 'OK'), blocks: [section(`:ok_hand: ${escapeMrkdwn(text || 'OK')}`)] };
}

/** Said instead of a stack's details to someone who may not read them. */
export const NOT_VISIBLE =
  "You can see a stack's plans once you are in its alert channel or may approve it; ask in that channel.";

/** Said when Slack could not tell who may see what: nothing is shown rather than guessed. */
export const VISIBILITY_UNKNOWN =
  'driftgate could not check with Slack which stacks you may see, so nothing is shown. Please try again in a minute.';
