import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhooks } from '@octokit/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createGithubWebhookListener } from '../../../src/http/github-webhook/listener.js';

const SECRET = 'another-webhook-secret';
let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** The listener on a real loopback server, with a scheduler stand-in that records what it was asked. */
async function start(requestCheck: (name: string) => Promise<{ status: string }>) {
  const logs: { level: string; obj: object; msg?: string }[] = [];
  const log = (level: string) => (obj: object, msg?: string) => void logs.push({ level, obj, ...(msg ? { msg } : {}) });
  const logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  const stacks = [
    { name: 'prod/db', git: { url: 'u', branch: 'main', repository: 'acme/infra', path: 'db', varFiles: [] } },
  ] as never;
  server = createServer(
    createGithubWebhookListener({ secret: SECRET, stacks: () => stacks, requestCheck, logger, maxBodyBytes: 1024 }),
  );
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/github/webhook`;
  const post = async (body: string, headers: Record<string, string> = {}) => {
    const signed = {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': 'd-1',
      'x-hub-signature-256': await new Webhooks({ secret: SECRET }).sign(body),
    };
    const res = await fetch(url, { method: 'POST', headers: { ...signed, ...headers }, body });
    return { status: res.status, body: await res.json() };
  };
  return { post, logs };
}

describe('the GitHub webhook listener over HTTP', () => {
  it('refuses a body over the limit and a content type other than JSON, before verifying anything', async () => {
    const asked: string[] = [];
    const { post } = await start(async (name) => {
      asked.push(name);
      return { status: 'no_changes' };
    });
    expect(await post(JSON.stringify({ ref: 'refs/heads/main', pad: 'x'.repeat(2000) }))).toMatchObject({
      status: 413,
    });
    expect(await post('payload=%7B%7D', { 'content-type': 'application/x-www-form-urlencoded' })).toMatchObject({
      status: 415,
    });
    expect(asked).toEqual([]);
  });

  it('acks before the check and logs a check that cannot run; the listener keeps answering', async () => {
    const { post, logs } = await start(() => Promise.reject(new Error('driftgate is shutting down')));
    const push = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/infra' } });
    expect(await post(push)).toEqual({ status: 202, body: { accepted: true } });
    await new Promise((r) => setTimeout(r, 10));
    expect(logs).toContainEqual({
      level: 'warn',
      obj: { delivery: 'd-1', stack: 'prod/db', error: 'driftgate is shutting down' },
      msg: 'webhook check not run',
    });
    expect(await post(push)).toMatchObject({ status: 202 });
  });
});
