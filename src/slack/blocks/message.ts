/** The shapes every renderer returns and the small block builders they share. */
import type {
  ActionsBlock,
  Button,
  ContextBlock,
  DividerBlock,
  HeaderBlock,
  KnownBlock,
  SectionBlock,
} from '@slack/types';
import type { Mode } from '../../config/schema.js';
import { LIMITS } from '../limits.js';
import { escapeMrkdwn, truncate } from './escape.js';

/** A chat.postMessage / chat.update / chat.postEphemeral body: `text` is the notification fallback. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

/** What a message says about a stack; environment and mode come from its resolved config. */
export interface StackRef {
  name: string;
  environment?: string;
  mode: Mode;
}

/** A plain_text header, cut to Slack's 150 characters. plain_text is never parsed, so no escaping. */
export function header(text: string): HeaderBlock {
  return { type: 'header', text: { type: 'plain_text', text: truncate(text, LIMITS.headerText), emoji: true } };
}

/** A mrkdwn section; callers escape untrusted parts, this only enforces the length. */
export function section(mrkdwn: string, extra: Partial<SectionBlock> = {}): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(mrkdwn, LIMITS.sectionText) }, ...extra };
}

export function context(parts: string[]): ContextBlock {
  const elements = parts.filter(Boolean).slice(0, LIMITS.contextElements);
  return {
    type: 'context',
    elements: elements.map((text) => ({ type: 'mrkdwn', text: truncate(text, LIMITS.fieldText) })),
  };
}

export const divider: DividerBlock = { type: 'divider' };

export function actions(elements: Button[], blockId?: string): ActionsBlock {
  return {
    type: 'actions',
    elements: elements.slice(0, LIMITS.actionsElements),
    ...(blockId ? { block_id: blockId } : {}),
  };
}

export function button(text: string, actionId: string, value: string, extra: Partial<Button> = {}): Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: truncate(text, LIMITS.buttonText), emoji: true },
    action_id: actionId,
    value,
    ...extra,
  };
}

/** Slack's date token: each reader sees their own time zone; the fallback is UTC. */
export function slackDate(date: Date, format = '{date_short_pretty} {time}'): string {
  const epoch = Math.floor(date.getTime() / 1000);
  const fallback = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${epoch}^${format}|${fallback}>`;
}

/** `34 s`, `2 min 5 s`, `1 h 3 min`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The stack as shown in mrkdwn: bold name, environment after it. */
export function stackLabel(stack: { name: string; environment?: string }): string {
  const env = stack.environment ? ` (${escapeMrkdwn(stack.environment)})` : '';
  return `*${escapeMrkdwn(stack.name)}*${env}`;
}

/** A fallback `text` (mrkdwn-parsed in notifications): escaped and within Slack's limit. */
export function fallbackText(text: string): string {
  return truncate(escapeMrkdwn(text), 3000);
}
