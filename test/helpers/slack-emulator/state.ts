/** What the Slack emulator remembers: workspace seed data and everything posted to it. */

export interface EmulatedUser {
  id: string;
  name: string;
  real_name?: string;
  is_bot?: boolean;
  deleted?: boolean;
  tz?: string;
  /** A single-channel guest. */
  is_ultra_restricted?: boolean;
  /** A multi-channel guest. */
  is_restricted?: boolean;
}

export interface EmulatedUsergroup {
  id: string;
  handle: string;
  name?: string;
  users: string[];
}

export interface EmulatedMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  /** How many chat.update calls were applied to it. */
  updates: number;
  /** Files shared into the channel/thread by files.completeUploadExternal land as messages too. */
  files?: string[];
}

export interface EmulatedEphemeral {
  channel: string;
  user: string;
  messageTs: string;
  text?: string;
  blocks?: unknown[];
}

export interface EmulatedView {
  id: string;
  /** `open` for views.open (a modal), `home` for views.publish. */
  kind: 'open' | 'home';
  triggerId?: string;
  userId?: string;
  view: Record<string, unknown>;
}

export interface EmulatedFile {
  id: string;
  filename: string;
  length: number;
  title?: string;
  /** Set once the upload URL received the bytes. */
  bytes?: Buffer;
  /** Set by files.completeUploadExternal. */
  shared?: { channel: string; threadTs?: string };
}

export interface EmulatorState {
  token: string;
  /** When set, only these channel ids exist; others are `channel_not_found`. */
  channels?: Set<string>;
  users: Map<string, EmulatedUser>;
  /** Channel id -> member ids; a channel not listed has no members. */
  members: Map<string, string[]>;
  usergroups: Map<string, EmulatedUsergroup>;
  messages: EmulatedMessage[];
  ephemerals: EmulatedEphemeral[];
  views: EmulatedView[];
  files: Map<string, EmulatedFile>;
  /** Base URL of the emulator's origin, for upload URLs. */
  origin: string;
  nextSeq: () => number;
}

export function createState(token: string, channels?: string[]): EmulatorState {
  let seq = 0;
  return {
    token,
    channels: channels ? new Set(channels) : undefined,
    users: new Map(),
    members: new Map(),
    usergroups: new Map(),
    messages: [],
    ephemerals: [],
    views: [],
    files: new Map(),
    origin: '',
    nextSeq: () => ++seq,
  };
}

/** A message `ts` like Slack's: seconds, a dot, six digits; unique and increasing within one emulator. */
export function newTs(state: EmulatorState): string {
  const seq = state.nextSeq();
  return `${1_700_000_000 + seq}.${String(seq).padStart(6, '0')}`;
}
