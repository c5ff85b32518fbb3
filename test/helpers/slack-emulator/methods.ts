import { blockProblems, messageProblems } from '../../../src/slack/limits.js';
import { type EmulatedMessage, type EmulatedView, type EmulatorState, newTs } from './state.js';

type Args = Record<string, unknown>;
type Body = Record<string, unknown>;
export type MethodHandler = (state: EmulatorState, args: Args) => Body;

const fail = (error: string, extra: Body = {}): Body => ({ ok: false, error, ...extra });
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const truthy = (value: unknown): boolean => value === true || value === 'true' || value === '1' || value === 1;

function channelError(state: EmulatorState, channel: string | undefined): Body | undefined {
  if (!channel) return fail('channel_not_found');
  if (state.channels && !state.channels.has(channel)) return fail('channel_not_found');
  return undefined;
}

function invalidBlocks(message: Args): Body | undefined {
  const problems = messageProblems(message);
  return problems.length ? fail('invalid_blocks', { problems }) : undefined;
}

function viewError(view: unknown): Body | undefined {
  if (typeof view !== 'object' || view === null)
    return fail('invalid_arguments', { problems: ['view is not an object'] });
  const blocks = (view as Args).blocks;
  const problems = Array.isArray(blocks) ? blockProblems(blocks, 'view') : ['view.blocks is not an array'];
  return problems.length ? fail('invalid_blocks', { problems }) : undefined;
}

function keepView(state: EmulatorState, view: unknown, where: Omit<EmulatedView, 'id' | 'view'>): Body {
  const refused = viewError(view);
  if (refused) return refused;
  const id = `V${state.nextSeq()}`;
  state.views.push({ id, ...where, view: view as Args });
  return { ok: true, view: { id, ...(view as Args) } };
}

function findMessage(state: EmulatorState, channel: string, ts: string): EmulatedMessage | undefined {
  return state.messages.find((m) => m.channel === channel && m.ts === ts);
}

const content = (args: Args) => ({
  text: str(args.text),
  blocks: Array.isArray(args.blocks) ? args.blocks : undefined,
  attachments: Array.isArray(args.attachments) ? args.attachments : undefined,
});

export const METHODS: Record<string, MethodHandler> = {
  'auth.test': () => ({
    ok: true,
    url: 'https://emulated.slack.com/',
    team: 'Emulated',
    user: 'driftgate',
    team_id: 'T0EMU',
    user_id: 'U0BOT',
    bot_id: 'B0BOT',
  }),

  'chat.postMessage'(state, args) {
    const channel = str(args.channel);
    const refused = channelError(state, channel) ?? invalidBlocks(args);
    if (refused) return refused;
    const threadTs = str(args.thread_ts);
    if (threadTs && !findMessage(state, channel!, threadTs)) return fail('thread_not_found');
    const message: EmulatedMessage = { channel: channel!, ts: newTs(state), threadTs, ...content(args), updates: 0 };
    state.messages.push(message);
    return {
      ok: true,
      channel: message.channel,
      ts: message.ts,
      message: { ...content(args), ts: message.ts, thread_ts: threadTs },
    };
  },

  'chat.update'(state, args) {
    const channel = str(args.channel);
    const refused = channelError(state, channel);
    if (refused) return refused;
    const message = findMessage(state, channel!, str(args.ts) ?? '');
    if (!message) return fail('message_not_found');
    const invalid = invalidBlocks(args);
    if (invalid) return invalid;
    Object.assign(message, content(args), { updates: message.updates + 1 });
    return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
  },

  'chat.postEphemeral'(state, args) {
    const channel = str(args.channel);
    const user = str(args.user);
    const refused = channelError(state, channel) ?? (user ? undefined : fail('user_not_found')) ?? invalidBlocks(args);
    if (refused) return refused;
    const messageTs = newTs(state);
    state.ephemerals.push({
      channel: channel!,
      user: user!,
      messageTs,
      text: str(args.text),
      blocks: content(args).blocks,
    });
    return { ok: true, message_ts: messageTs };
  },

  'views.open'(state, args) {
    const triggerId = str(args.trigger_id);
    return triggerId ? keepView(state, args.view, { kind: 'open', triggerId }) : fail('invalid_trigger_id');
  },

  'views.publish'(state, args) {
    const userId = str(args.user_id);
    return userId ? keepView(state, args.view, { kind: 'home', userId }) : fail('user_not_found');
  },

  'files.getUploadURLExternal'(state, args) {
    const filename = str(args.filename);
    const length = Number(args.length);
    if (!filename || !Number.isInteger(length) || length < 0) return fail('invalid_arguments');
    const id = `F${state.nextSeq()}`;
    state.files.set(id, { id, filename, length, title: str(args.alt_txt) });
    return { ok: true, upload_url: `${state.origin}/upload/${id}`, file_id: id };
  },

  'files.completeUploadExternal'(state, args) {
    const entries = Array.isArray(args.files) ? (args.files as Args[]) : [];
    if (entries.length === 0) return fail('invalid_arguments');
    const channel = str(args.channel_id);
    if (channel) {
      const refused = channelError(state, channel);
      if (refused) return refused;
    }
    const threadTs = str(args.thread_ts);
    const files = entries.map((entry) => state.files.get(String(entry.id)));
    // Slack only completes files whose bytes arrived at the upload URL.
    if (files.some((f) => f?.bytes === undefined)) return fail('file_not_found');
    for (const [i, file] of files.entries()) {
      file!.title = str(entries[i]!.title) ?? file!.title;
      if (channel) file!.shared = { channel, threadTs };
    }
    if (channel) {
      state.messages.push({
        channel,
        ts: newTs(state),
        threadTs,
        text: str(args.initial_comment),
        updates: 0,
        files: files.map((f) => f!.id),
      });
    }
    return { ok: true, files: files.map((f) => ({ id: f!.id, title: f!.title ?? f!.filename })) };
  },

  'usergroups.list'(state, args) {
    const withUsers = truthy(args.include_users);
    const usergroups = [...state.usergroups.values()].map((g) => ({
      id: g.id,
      handle: g.handle,
      name: g.name ?? g.handle,
      ...(withUsers ? { users: [...g.users] } : {}),
    }));
    return { ok: true, usergroups };
  },

  'usergroups.users.list'(state, args) {
    const group = state.usergroups.get(str(args.usergroup) ?? '');
    return group ? { ok: true, users: [...group.users] } : fail('no_such_subteam');
  },

  'users.info'(state, args) {
    const id = str(args.user) ?? '';
    const user = state.users.get(id);
    if (user) return { ok: true, user: { ...user } };
    // Any well-formed id is a regular member of the workspace, as the people tests click as are.
    return /^[UW][A-Z0-9]{2,}$/.test(id) ? { ok: true, user: { id, name: id.toLowerCase() } } : fail('user_not_found');
  },

  /** `is_member`: the bot (auth.test's user_id, U0BOT) is among the channel's seeded members. */
  'conversations.info'(state, args) {
    const channel = str(args.channel);
    const refused = channelError(state, channel);
    if (refused) return refused;
    const isMember = (state.members.get(channel!) ?? []).includes('U0BOT');
    return { ok: true, channel: { id: channel, name: channel!.toLowerCase(), is_member: isMember } };
  },

  'conversations.members'(state, args) {
    const channel = str(args.channel) ?? '';
    if (state.channels && !state.channels.has(channel)) return fail('channel_not_found');
    const all = state.members.get(channel) ?? [];
    // The first member on a page of its own, the rest on a second: Slack pages long lists with a cursor.
    const second = str(args.cursor) === 'page-2';
    const page = second ? all.slice(1) : all.slice(0, 1);
    const next = !second && all.length > 1 ? 'page-2' : '';
    return { ok: true, members: page, response_metadata: { next_cursor: next } };
  },
};
