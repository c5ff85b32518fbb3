import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appClient, makeAppFixture, rsaKeyPair, type KeyPair } from './app-fixture.js';
import { rejection, type GitHubFixture } from './github-fixture.js';

let key: KeyPair;
let otherKey: KeyPair;
beforeAll(() => {
  key = rsaKeyPair();
  otherKey = rsaKeyPair();
});

let f: GitHubFixture | undefined;
afterEach(async () => {
  await f?.cleanup();
  f = undefined;
});

async function appFixture() {
  f = await makeAppFixture(key);
  return f;
}

const pemBody = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----'));

describe('GitHub App authentication end to end', () => {
  it('signs a JWT the emulator verifies, gets one installation token, and uses it for every call', async () => {
    const fx = await appFixture();
    const client = appClient(fx, key.privateKey);
    await client.commitToBranch(fx.repo, {
      branch: 'driftgate/app',
      parentSha: fx.base,
      message: 'By the App',
      files: [{ path: 'a.tf', content: '1\n' }],
    });
    const pr = await client.openPullRequest(fx.repo, {
      head: 'driftgate/app',
      base: 'main',
      title: 'App PR',
      body: '',
      labels: ['driftgate'],
    });
    expect(pr).toMatchObject({ number: 1, state: 'open' });

    const calls = fx.emulator.calls();
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: '/app/installations/42/access_tokens',
      status: 201,
      auth: 'jwt',
    });
    expect(calls.slice(1).every((c) => c.auth === 'installation' && c.status < 300)).toBe(true);
    expect(calls.filter((c) => c.path.includes('access_tokens'))).toHaveLength(1);
    expect(fx.emulator.issuedTokens()).toHaveLength(1);
    expect(fx.emulator.issuedTokens()[0]).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
  });

  it("a key that is not the App's: the App credentials are refused, and no key material is said or logged", async () => {
    const fx = await appFixture();
    const err = await rejection(appClient(fx, otherKey.privateKey).findOpenPullRequest(fx.repo, 'x', 'main'));
    expect(err).toMatchObject({ name: 'GitHubError', status: 401, retriable: false });
    expect(err.message).toContain(
      'GitHub refused the GitHub App credentials (401 A JSON web token could not be decoded)',
    );
    expect(err.message).toContain('GITHUB_APP_PRIVATE_KEY');
    const said = [err.message, err.stack, ...fx.logs.map((l) => JSON.stringify(l))].join('\n');
    for (const line of [...pemBody(otherKey.privateKey), ...pemBody(key.privateKey)]) expect(said).not.toContain(line);
    expect(said).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });

  it('an installation of another App: the installation is not found', async () => {
    const fx = await appFixture();
    const err = await rejection(appClient(fx, key.privateKey, '7').pullRequestsOfCommit(fx.repo, fx.base));
    expect(err).toMatchObject({ status: 404, retriable: false });
    expect(err.message).toContain('GitHub App installation not found (404): check GITHUB_APP_INSTALLATION_ID');
  });

  it('installation tokens are only for repositories: the JWT alone is refused there', async () => {
    const fx = await appFixture();
    const jwtOnly = await fetch(`${fx.emulator.apiUrl}/repos/acme/infrastructure`, {
      headers: { authorization: 'Bearer aaa.bbb.ccc' },
    });
    expect(jwtOnly.status).toBe(401);
    expect(await jwtOnly.json()).toMatchObject({ message: 'Bad credentials' });
  });
});
