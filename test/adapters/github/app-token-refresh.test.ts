import { afterEach, describe, expect, it, vi } from 'vitest';
import { appClient, makeAppFixture, rsaKeyPair } from './app-fixture.js';
import type { GitHubFixture } from './github-fixture.js';

// A file of its own: moving the clock an hour ahead leaves the throttling plugin's process-wide limiters
// waiting for that hour once the clock is back, so nothing may run after this test in the same process.
let f: GitHubFixture | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await f?.cleanup();
});

describe('GitHub App installation tokens', () => {
  it('gets a new installation token once the old one has expired', async () => {
    const key = rsaKeyPair();
    f = await makeAppFixture(key);
    const fx = f;
    const client = appClient(fx, key.privateKey);
    const commit = (branch: string) =>
      client.commitToBranch(fx.repo, {
        branch,
        parentSha: fx.base,
        message: 'm',
        files: [{ path: 'a.tf', content: branch }],
      });
    await commit('one');
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 61 * 60 * 1000);
    await commit('two');

    expect(fx.emulator.issuedTokens()).toHaveLength(2);
    const tokenCalls = fx.emulator.calls().filter((c) => c.path.endsWith('/access_tokens'));
    expect(tokenCalls.map((c) => [c.auth, c.status])).toEqual([
      ['jwt', 201],
      ['jwt', 201],
    ]);
    expect(fx.emulator.calls().filter((c) => c.status === 401)).toEqual([]);
  });
});
