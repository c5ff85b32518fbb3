import { z } from 'zod';
import type { ApproverGroup } from '../domain/approvals/model.js';
import { DriftgateError, ExternalServiceError, errorMessage } from '../domain/errors.js';
import type { UsergroupResolver } from '../ports/usergroups.js';
import type { SlackApi } from './api.js';

/** A Slack Web API call: method and arguments in, Slack's JSON body (`ok: true`) out. */
export type SlackCall = SlackApi['call'];

export interface UsergroupResolverOptions {
  call: SlackCall;
  /** How long a handle's id and a group's members are trusted. */
  ttlMs: number;
  now: () => Date;
  logger?: { warn(obj: object, msg?: string): void };
}

const UsergroupsList = z.object({
  ok: z.literal(true),
  usergroups: z.array(z.object({ id: z.string(), handle: z.string() })),
});
const UsergroupUsers = z.object({ ok: z.literal(true), users: z.array(z.string()) });

interface Cached<T> {
  expiresAt: number;
  value: Promise<T>;
}

export function createUsergroupResolver(options: UsergroupResolverOptions): UsergroupResolver {
  const { ttlMs, now } = options;
  let handles: Cached<Map<string, string>> | undefined;
  const members = new Map<string, Cached<Set<string>>>();

  async function call<T>(method: string, args: Record<string, unknown>, schema: z.ZodType<T>): Promise<T> {
    let body: Record<string, unknown>;
    try {
      body = await options.call(method, args);
    } catch (err) {
      // SlackApi throws ExternalServiceError already; anything else is a failure to reach Slack.
      if (err instanceof DriftgateError && err.code === 'EXTERNAL_SERVICE') throw err;
      throw new ExternalServiceError('slack', `${method} failed: ${errorMessage(err)}`, true, { cause: err });
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const where = parsed.error.issues.map((i) => i.path.join('.') || '(root)').join(', ');
      throw new ExternalServiceError('slack', `${method} returned an unexpected response (at ${where})`, false);
    }
    return parsed.data;
  }

  /** Caches the promise, so concurrent clicks share one call; a failure is not cached. */
  function cached<T>(
    get: () => Cached<T> | undefined,
    set: (c: Cached<T> | undefined) => void,
    load: () => Promise<T>,
  ): Promise<T> {
    const hit = get();
    if (hit && hit.expiresAt > now().getTime()) return hit.value;
    const entry: Cached<T> = { expiresAt: now().getTime() + ttlMs, value: load() };
    set(entry);
    entry.value.catch(() => {
      if (get() === entry) set(undefined);
    });
    return entry.value;
  }

  const handleIds = () =>
    cached(
      () => handles,
      (c) => void (handles = c),
      async () => {
        const list = await call('usergroups.list', {}, UsergroupsList);
        return new Map(list.usergroups.map((g) => [g.handle.toLowerCase(), g.id]));
      },
    );

  const membersOf = (id: string) =>
    cached(
      () => members.get(id),
      (c) => void (c ? members.set(id, c) : members.delete(id)),
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
