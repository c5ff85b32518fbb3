/** A GitHub App (a fresh RSA key pair) the emulator knows, and clients configured for it from env variables. */
import { generateKeyPairSync } from 'node:crypto';
import { createGitHubClient } from '../../../src/adapters/github/client.js';
import { githubSettingsFor } from '../../../src/adapters/github/env.js';
import type { GitHubClient } from '../../../src/ports/github.js';
import { FAST, makeGitHubFixture, type GitHubFixture } from './github-fixture.js';

export const APP_ID = 1234;
export const INSTALLATION_ID = 42;

export type KeyPair = { publicKey: string; privateKey: string };

/** PKCS#1, the format GitHub hands App private keys out in. */
export const rsaKeyPair = (): KeyPair =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });

/** The emulator accepts no plain token: only installation tokens of this App. */
export const makeAppFixture = (key: KeyPair) =>
  makeGitHubFixture({ tokens: [], app: { id: APP_ID, publicKey: key.publicKey, installationId: INSTALLATION_ID } });

/** The App's settings as they come from a secret store: the PEM on one line with literal `\n`s. */
export function appClient(
  fx: GitHubFixture,
  privateKey: string,
  installationId = String(INSTALLATION_ID),
): GitHubClient {
  const settings = githubSettingsFor({
    GITHUB_APP_ID: String(APP_ID),
    GITHUB_APP_PRIVATE_KEY: privateKey.replaceAll('\n', '\\n'),
    GITHUB_APP_INSTALLATION_ID: installationId,
    GITHUB_API_URL: fx.emulator.apiUrl,
  })!;
  return createGitHubClient(settings, {
    ...FAST,
    logger: { warn: (obj, msg) => void fx.logs.push({ obj, ...(msg ? { msg } : {}) }) },
  });
}
