import { z } from 'zod';
import type { SlackDirectory } from '../../ports/slack-directory.js';
import { createTtlCache, lookUp, type SlackCall } from './lookups.js';

export interface SlackDirectoryOptions {
  call: SlackCall;
  /** How long a user's guest flag and a channel's members are trusted (`slack.usergroupCacheTtl`). */
  ttlMs: number;
  now: () => Date;
}

const UsersInfo = z.object({
  ok: z.literal(true),
  user: z.object({ is_restricted: z.boolean().optional(), is_ultra_restricted: z.boolean().optional() }),
});
const ConversationMembers = z.object({
  ok: z.literal(true),
  members: z.array(z.string()),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/** A channel of more members than this is read no further: its later pages would be thousands of calls. */
const MAX_MEMBER_PAGES = 50;

/** users.info (scope users:read) and conversations.members (channels:read, groups:read), cached. */
export function createSlackDirectory(options: SlackDirectoryOptions): SlackDirectory {
  const guests = createTtlCache<boolean>(options.ttlMs, options.now);
  const channels = createTtlCache<Set<string>>(options.ttlMs, options.now);

  async function membersOf(channel: string): Promise<Set<string>> {
    const members = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_MEMBER_PAGES; page++) {
      const args = { channel, limit: 1000, ...(cursor ? { cursor } : {}) };
      const answer = await lookUp(options.call, 'conversations.members', args, ConversationMembers);
      for (const id of answer.members) members.add(id);
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return members;
  }

  return {
    isGuest: (userId) =>
      guests.get(userId, async () => {
        const { user } = await lookUp(options.call, 'users.info', { user: userId }, UsersInfo);
        return Boolean(user.is_restricted || user.is_ultra_restricted);
      }),
    inChannel: async (userId, channel) => (await channels.get(channel, () => membersOf(channel))).has(userId),
  };
}
