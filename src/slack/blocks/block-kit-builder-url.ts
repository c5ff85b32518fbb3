/** A Block Kit Builder link that shows a message as Slack would render it (used by `driftgate demo`). */
import type { SlackMessage } from './message.js';

export function blockKitBuilderUrl(message: Pick<SlackMessage, 'blocks'>): string {
  return `https://app.slack.com/block-kit-builder#${encodeURIComponent(JSON.stringify({ blocks: message.blocks }))}`;
}
