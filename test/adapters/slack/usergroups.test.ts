import { afterEach, describe, expect, it } from 'vitest';
import { ApproversConfig } from '../../../src/config/schema.js';
import { ExternalServiceError } from '../../../src/domain/errors.js';
import { createLogger } from '../../../src/logging/logger.js';
import { createSlackApi } from '../../../src/adapters/slack/api.js';
import { createUsergroupResolver, type SlackCall } from '../../../src/adapters/slack/usergroups.js';
import { startSlackEmulator, type SlackEmulator } from '../../helpers/slack-emulator.js';

const approvers = ApproversConfig.parse({
  groups: {
    'sre-leads': { users: ['U0DIRECT'], usergroups: ['@sre-leads'] },
    platform: { usergroups: ['platform-team', 'S0BYID'] },
    ghosts: { usergroups: ['nobody-has-this-handle'] },
  },
});

let emulator: SlackEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function setup() {
  emulator = await startSlackEmulator({
    usergroups: [
      { id: 'S0LEADS', handle: 'sre-leads', users: ['U0ALICE', 'U0BOB'] },
      { id: 'S0PLAT', handle: 'platform-team', users: ['U0BOB', 'U0CAROL'] },
      { id: 'S0BYID', handle: 'renamed-since', users: ['U0DAVE'] },
    ],
  });
  const clock = { value: new Date('2025-01-01T00:00:00Z') };
  const warnings: object[] = [];
  const resolver = createUsergroupResolver({
    call: slackApi(emulator, emulator.token),
    ttlMs: 5 * 60_000,
    now: () => new Date(clock.value),
    logger: { warn: (obj) => void warnings.push(obj) },
  });
  return { emulator, resolver, clock, warnings };
}

/** The real Slack client driftgate uses, pointed at the emulator. */
function slackApi(e: SlackEmulator, token: string): SlackCall {
  return createSlackApi({ token, apiUrl: e.apiUrl, logger: createLogger({ level: 'silent', redact: (l) => l }) }).call;
}

const count = (e: SlackEmulator) => ({
  list: e.calls('usergroups.list').length,
  users: e.calls('usergroups.users.list').length,
});

describe('usergroup resolver against the Slack emulator', () => {
  it.each([
    { user: 'U0DIRECT', want: ['sre-leads'] },
    { user: 'U0ALICE', want: ['sre-leads'] },
    { user: 'U0BOB', want: ['sre-leads', 'platform'] },
    { user: 'U0CAROL', want: ['platform'] },
    // A user group configured by id needs no handle lookup, and a renamed handle does not matter.
    { user: 'U0DAVE', want: ['platform'] },
    { user: 'U0MALLORY', want: [] },
  ])('$user is in $want', async ({ user, want }) => {
    const { resolver } = await setup();
    expect((await resolver.groupsOf(user, approvers)).sort()).toEqual([...want].sort());
  });

  it('asks Slack nothing for a user listed by id, and only about the groups asked for', async () => {
    const { emulator, resolver } = await setup();
    expect(await resolver.groupsOf('U0DIRECT', approvers, ['sre-leads'])).toEqual(['sre-leads']);
    expect(emulator.calls()).toEqual([]);
    expect(await resolver.groupsOf('U0CAROL', approvers, ['platform'])).toEqual(['platform']);
    expect(emulator.calls('usergroups.users.list').map((c) => c.args.usergroup)).toEqual(['S0PLAT']);
  });

  it('caches handles and members for the TTL, shares concurrent lookups, and asks again after it', async () => {
    const { emulator, resolver, clock } = await setup();
    await Promise.all([
      resolver.groupsOf('U0ALICE', approvers, ['sre-leads']),
      resolver.groupsOf('U0BOB', approvers, ['sre-leads']),
    ]);
    expect(count(emulator)).toEqual({ list: 1, users: 1 });

    clock.value = new Date(clock.value.getTime() + 4 * 60_000);
    emulator.seedUsergroup({ id: 'S0LEADS', handle: 'sre-leads', users: ['U0ALICE', 'U0BOB', 'U0NEWLEAD'] });
    // Still cached: the new lead is not seen yet.
    expect(await resolver.groupsOf('U0NEWLEAD', approvers, ['sre-leads'])).toEqual([]);
    expect(count(emulator)).toEqual({ list: 1, users: 1 });

    clock.value = new Date(clock.value.getTime() + 2 * 60_000);
    expect(await resolver.groupsOf('U0NEWLEAD', approvers, ['sre-leads'])).toEqual(['sre-leads']);
    expect(count(emulator)).toEqual({ list: 2, users: 2 });
  });

  it('lets a handle Slack does not know grant nobody, and says so', async () => {
    const { resolver, warnings } = await setup();
    expect(await resolver.groupsOf('U0ALICE', approvers, ['ghosts'])).toEqual([]);
    expect(warnings).toEqual([{ usergroup: 'nobody-has-this-handle' }]);
  });

  it('throws a retriable ExternalServiceError while Slack is down, caches no failure, and recovers', async () => {
    const { emulator, resolver } = await setup();
    await emulator.down();
    const refused = await resolver.groupsOf('U0ALICE', approvers, ['sre-leads']).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ExternalServiceError);
    expect(refused).toMatchObject({ code: 'EXTERNAL_SERVICE', service: 'slack', retriable: true });

    await emulator.up();
    emulator.failNext(1, { status: 503 });
    await expect(resolver.groupsOf('U0ALICE', approvers, ['sre-leads'])).rejects.toMatchObject({
      code: 'EXTERNAL_SERVICE',
    });

    expect(await resolver.groupsOf('U0ALICE', approvers, ['sre-leads'])).toEqual(['sre-leads']);
  });

  it('reports a refused token as an error that retrying will not fix', async () => {
    const { emulator } = await setup();
    const resolver = createUsergroupResolver({
      call: slackApi(emulator, 'xoxb-wrong'),
      ttlMs: 60_000,
      now: () => new Date(),
    });
    await expect(resolver.groupsOf('U0ALICE', approvers, ['sre-leads'])).rejects.toMatchObject({
      code: 'EXTERNAL_SERVICE',
      retriable: false,
      message: 'slack: usergroups.list failed: invalid_auth',
    });
  });

  it('rejects a response that is not what Slack documents', async () => {
    const resolver = createUsergroupResolver({
      call: async () => ({ ok: true, usergroups: [{ id: 42 }] }),
      ttlMs: 60_000,
      now: () => new Date(),
    });
    await expect(resolver.groupsOf('U0ALICE', approvers, ['sre-leads'])).rejects.toMatchObject({
      code: 'EXTERNAL_SERVICE',
      retriable: false,
      message: expect.stringContaining(
        'usergroups.list returned an unexpected response (at usergroups.0.id, usergroups.0.handle)',
      ),
    });
  });
});
