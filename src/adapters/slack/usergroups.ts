import { z } from 'zod';
import type { ApproverGroup } from '../../domain/approvals/model.js';
import type { UsergroupResolver } from '../../ports/usergroups.js';
import { createTtlCache, lookUp, type SlackCall } from './lookups.js';
import type { Logger } from '../../ports/logger.js';

export type { SlackCall } from './lookups.js';

export interface UsergroupResolverOptions {
  call: SlackCall;
  /** How long a handle's id and a group's members are trusted. */
  ttlMs: number;
  now: () => Date;
  logger?: Pick<Logger, 'warn'>;
}

const UsergroupsList = z.object({
  ok: z.literal(true),
  usergroups: z.array(z.object({ id: z.string(), handle: z.string() })),
});
const UsergroupUsers = z.object({ ok: z.literal(true), users: z.array(z.string()) });

export function createUsergroupResolver(options: UsergroupResolverOptions): UsergroupResolver {
  const { ttlMs, now } = options;
  const handles = createTtlCache<Map<string, string>>(ttlMs, now);
  const members = createTtlCache<Set<string>>(ttlMs, now);
  const call = <T>(method: string, args: Record<string, unknown>, schema: z.ZodType<T>) =>
    lookUp(options.call, method, args, schema);

  const handleIds = () =>
    handles.get('', async () => {
      const list = await call('usergroups.list', {}, UsergroupsList);
      return new Map(list.usergroups.map((g) => [g.handle.toLowerCase(), g.id]));
    });

  const membersOf = (id: string) =>
    members.get(
      id,
      async () => new Set((await call('usergroups.users.list', { usergroup: id }, UsergroupUsers)).users),
    );

  async function usergroupId(ref: string): Promise<string | undefined> {
    if (/^S[A-Z0-9]{2,}$/.test(ref)) return ref;
    const handle = ref.replace(/^@/, '').toLowerCase();
    const id = (await handleIds()).get(handle);
    if (!id) options.logger?.warn({ usergroup: ref }, 'approver user group not found in Slack; it grants nobody');
    return id;
  }

  async function inGroup(userId: string, group: ApproverGroup): Promise<boolean> {
    if (group.users.includes(userId)) return true;
    for (const ref of group.usergroups) {
      const id = await usergroupId(ref);
      if (id && (await membersOf(id)).has(userId)) return true;
    }
    return false;
  }

  return {
    async groupsOf(userId, approvers, among) {
      const names = Object.keys(approvers.groups).filter((name) => !among || among.includes(name));
      const found = await Promise.all(
        names.map(async (name) => ((await inGroup(userId, approvers.groups[name]!)) ? name : undefined)),
      );
      return found.filter((name): name is string => name !== undefined);
    },
  };
}
