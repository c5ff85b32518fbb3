import { stackMatcher } from '../domain/stack-glob.js';
import type { SlackConfig } from '../config/schema.js';
import type { Stack } from '../domain/stack.js';

/** The channel a stack's messages go to: the first `slack.channels` rule whose glob matches, else the default. */
export function channelFor(slack: SlackConfig, stack: Pick<Stack, 'name'>): string {
  const rule = slack.channels.find((r) => stackMatcher(r.match)(stack.name));
  return rule?.channel ?? slack.defaultChannel;
}

/**
 * The on-call mention for a stack's environment, when configured. Slack pings a user group only through
 * its id (`<!subteam^S…>`); a handle is shown as text, so configure the id where the page must ring.
 */
export function onCallMention(slack: SlackConfig, stack: Pick<Stack, 'environment'>): string | undefined {
  const onCall = slack.onCall;
  if (!onCall || !stack.environment || !onCall.environments.includes(stack.environment)) return undefined;
  const group = onCall.usergroup.replace(/^@/, '');
  return /^S[A-Z0-9]+$/.test(group) ? `<!subteam^${group}>` : `@${group}`;
}

/**
 * Where a pool's notices go: the channel of its stacks when they all alert into one, else the default
 * channel (a pool shared by teams is everyone's, and nobody's channel in particular).
 */
export function poolChannel(slack: SlackConfig, stacks: readonly Pick<Stack, 'name' | 'pool'>[], pool: string): string {
  const channels = new Set(stacks.filter((s) => s.pool === pool).map((s) => channelFor(slack, s)));
  return channels.size === 1 ? [...channels][0]! : slack.defaultChannel;
}
