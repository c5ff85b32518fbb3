import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { githubSettingsFor } from '../../../src/adapters/github/env.js';
import { ConfigError } from '../../../src/domain/errors.js';

const { privateKey: PEM } = generateKeyPairSync('rsa', {
  modulusLength: 1024,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const ONE_LINE_PEM = PEM.trim().replaceAll('\n', '\\n');
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const APP = { GITHUB_APP_ID: '123456', GITHUB_APP_PRIVATE_KEY: ONE_LINE_PEM, GITHUB_APP_INSTALLATION_ID: '987' };

function issuesOf(env: Record<string, string | undefined>): { path: string; message: string }[] {
  try {
    githubSettingsFor(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as ConfigError).message;
    // The values never appear: not the token, not a line of the key, not a bad URL's text.
    for (const secret of [
      TOKEN,
      ...PEM.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----')),
      'not-a-url',
      'hunter2',
    ])
      expect(message).not.toContain(secret);
    return (err as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('githubSettingsFor', () => {
  it('is undefined when neither a token nor an App is configured (empty values count as unset)', () => {
    expect(githubSettingsFor({})).toBeUndefined();
    expect(
      githubSettingsFor({ GITHUB_TOKEN: '', GITHUB_APP_ID: '', GITHUB_API_URL: 'https://github.example.com/api/v3' }),
    ).toBeUndefined();
  });

  it('a token, on github.com by default or on GitHub Enterprise Server (trailing slash dropped)', () => {
    expect(githubSettingsFor({ GITHUB_TOKEN: TOKEN })).toEqual({
      apiUrl: 'https://api.github.com',
      auth: { type: 'token', token: TOKEN },
    });
    expect(githubSettingsFor({ GITHUB_TOKEN: TOKEN, GITHUB_API_URL: 'https://ghe.example.com/api/v3/' })).toEqual({
      apiUrl: 'https://ghe.example.com/api/v3',
      auth: { type: 'token', token: TOKEN },
    });
    expect(githubSettingsFor({ GITHUB_TOKEN: TOKEN, GITHUB_API_URL: 'http://127.0.0.1:8080' })?.apiUrl).toBe(
      'http://127.0.0.1:8080',
    );
  });

  it('a GitHub App, its key given with literal \\n escapes as secret stores keep it', () => {
    expect(githubSettingsFor(APP)).toEqual({
      apiUrl: 'https://api.github.com',
      auth: { type: 'app', appId: '123456', privateKey: PEM.trim(), installationId: 987 },
    });
    expect(githubSettingsFor({ ...APP, GITHUB_APP_PRIVATE_KEY: PEM })?.auth).toMatchObject({ privateKey: PEM.trim() });
  });

  it.each([
    [
      'a half-configured App',
      { GITHUB_APP_ID: '1', GITHUB_APP_INSTALLATION_ID: '2' },
      [
        [
          'env.GITHUB_APP_PRIVATE_KEY',
          /is not set; a GitHub App needs GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY and GITHUB_APP_INSTALLATION_ID/,
        ],
      ],
    ],
    [
      'only the key',
      { GITHUB_APP_PRIVATE_KEY: ONE_LINE_PEM },
      [
        ['env.GITHUB_APP_ID', /is not set/],
        ['env.GITHUB_APP_INSTALLATION_ID', /is not set/],
      ],
    ],
    [
      'a token and an App',
      { GITHUB_TOKEN: TOKEN, ...APP },
      [
        [
          'env.GITHUB_TOKEN',
          /together with GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_APP_INSTALLATION_ID: .*not both/,
        ],
      ],
    ],
    [
      'a URL that is not one',
      { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: 'not-a-url' },
      [['env.GITHUB_API_URL', /must be an http\(s\) URL/]],
    ],
    [
      'a URL of another scheme',
      { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: 'ftp://hunter2@ghe.example.com' },
      [['env.GITHUB_API_URL', /must be an http\(s\) URL/]],
    ],
    [
      'a key that is not a PEM key',
      { ...APP, GITHUB_APP_PRIVATE_KEY: 'hunter2' },
      [['env.GITHUB_APP_PRIVATE_KEY', /RSA private key in PEM/]],
    ],
    [
      'an installation id that is not a number',
      { ...APP, GITHUB_APP_INSTALLATION_ID: 'acme' },
      [['env.GITHUB_APP_INSTALLATION_ID', /numeric id/]],
    ],
    ['an App id that is not one', { ...APP, GITHUB_APP_ID: 'hunter2' }, [['env.GITHUB_APP_ID', /numeric App ID/]]],
    ['a token with a line break', { GITHUB_TOKEN: `${TOKEN}\n` }, [['env.GITHUB_TOKEN', /no spaces or line breaks/]]],
  ] as const)('refuses %s, naming the variable and never the value', (_name, env, expected) => {
    const issues = issuesOf(env);
    expect(issues.map((i) => i.path)).toEqual(expected.map(([path]) => path));
    expected.forEach(([, message], i) => {
      expect(issues[i]!.message).toMatch(message);
    });
  });
});
