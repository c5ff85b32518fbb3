import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { terraformBaseEnv } from '../../src/app/context.js';
import { startServe } from '../../src/app/serve.js';
import { validateConfigText } from '../../src/config/load.js';

const parse = (yaml: string, env: Record<string, string> = {}) =>
  validateConfigText(`version: 1\nstacks:\n  - { name: prod/site, dir: /srv/stacks/site }\n${yaml}`, {
    baseDir: '/srv/driftgate',
    env,
  });

describe('the changeEvents section', () => {
  it('takes the push secret by name, the queue, identities, the Slack map, with the defaults filled in', async () => {
    const result = await parse(
      [
        'changeEvents:',
        '  secretEnv: DRIFTGATE_EVENTS_SECRET',
        '  sqs: { queueUrl: "https://sqs.eu-west-1.amazonaws.com/111122223333/driftgate-events" }',
        '  ownIdentities: ["arn:aws:iam::*:role/driftgate-*"]',
        '  automation: [{ name: autoscaler, arn: "arn:aws:iam::*:role/karpenter-*" }]',
        '  slackUsers: { "alice@example.com": U0ALICE }',
      ].join('\n'),
    );
    expect(result.issues).toEqual([]);
    expect(result.config?.changeEvents).toEqual({
      secretEnv: 'DRIFTGATE_EVENTS_SECRET',
      secretHeader: 'x-driftgate-events-secret',
      sqs: { queueUrl: 'https://sqs.eu-west-1.amazonaws.com/111122223333/driftgate-events', waitTime: 20 },
      ownIdentities: ['arn:aws:iam::*:role/driftgate-*'],
      automation: [{ name: 'autoscaler', arn: 'arn:aws:iam::*:role/karpenter-*' }],
      slackUsers: { 'alice@example.com': 'U0ALICE' },
      debounce: 120_000,
      maxEventAge: 3_600_000,
      cloudTrail: { lookup: true },
    });
    // The push secret is driftgate's own: terraform's environment never holds it.
    const env = terraformBaseEnv(result.config!, { DRIFTGATE_EVENTS_SECRET: 's3cret', PATH: '/bin' });
    expect(env).toEqual({ PATH: '/bin' });
  });

  it('names every bad value at its key, without echoing a pasted secret', async () => {
    const secret = 'a'.repeat(48);
    const result = await parse(
      [
        'changeEvents:',
        `  secretEnv: ${secret}`,
        '  sqs: { queueUrl: "http://127.0.0.1:9324/111122223333/q", waitTime: 30 }',
        '  ownIdentities: ["role/driftgate"]',
        '  automation: [{ name: Karpenter, arn: "arn:aws:iam::*:role/karpenter-*" }]',
        '  slackUsers: { alice: "@alice" }',
        '  debounce: soon',
        '  maxEventAge: 2m',
      ].join('\n'),
    );
    expect(result.issues).toEqual([
      {
        path: 'changeEvents.secretEnv',
        message: 'looks like a secret itself: name the environment variable that holds it',
      },
      { path: 'changeEvents.sqs.waitTime', message: 'must be 20 or less' },
      {
        path: 'changeEvents.ownIdentities[0]',
        message: 'an IAM ARN or ARN glob, e.g. "arn:aws:iam::*:role/driftgate-apply"',
      },
      { path: 'changeEvents.automation[0].name', message: 'lowercase letters, digits, "_" and "-"' },
      { path: 'changeEvents.slackUsers.alice', message: 'a Slack user id such as U024BE7LH' },
      { path: 'changeEvents.debounce', message: expect.stringContaining('invalid duration "soon"') },
      {
        path: 'changeEvents.maxEventAge',
        message: 'at least 5m: CloudTrail takes up to about 5 minutes to deliver an event',
      },
    ]);
    expect(JSON.stringify(result.issues)).not.toContain(secret);
  });

  it('needs a region it cannot read from the queue URL, and one for CloudTrail lookups', async () => {
    const local = await parse('changeEvents:\n  sqs: { queueUrl: "http://127.0.0.1:9324/111122223333/q" }');
    expect(local.issues).toEqual([
      { path: 'changeEvents.sqs.region', message: 'the queue URL names no AWS region: set sqs.region' },
    ]);
    const push = await parse('changeEvents:\n  secretEnv: EVENTS_SECRET');
    expect(push.issues).toEqual([
      {
        path: 'changeEvents.cloudTrail.region',
        message: 'the region to ask CloudTrail in (or cloudTrail: {lookup: false})',
      },
    ]);
    const off = await parse(
      'changeEvents:\n  secretEnv: EVENTS_SECRET\n  debounce: 5s\n  cloudTrail: { lookup: false }',
    );
    expect(off.issues).toEqual([]);
    expect(off.config?.changeEvents).toMatchObject({ debounce: 5000, cloudTrail: { lookup: false } });
    const window = await parse(
      'changeEvents:\n  secretEnv: EVENTS_SECRET\n  maxEventAge: 6h\n  cloudTrail: { lookup: false }',
    );
    expect(window.config?.changeEvents?.maxEventAge).toBe(6 * 3_600_000);
  });
});

describe('serve with change events', () => {
  const startWith = async (env: Record<string, string>) => {
    const result = await parse('changeEvents:\n  secretEnv: EVENTS_SECRET\n  cloudTrail: { lookup: false }');
    const dataDir = await mkdtemp(join(tmpdir(), 'driftgate-events-config-'));
    try {
      const running = await startServe({ ...result.config!, dataDir }, { env, port: 0, host: '127.0.0.1' });
      await running.stop();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  };

  it('refuses to start when the push secret’s variable is not set, naming the key and the variable', async () => {
    await expect(startWith({})).rejects.toThrow('changeEvents.secretEnv: EVENTS_SECRET is not set in the environment');
  });

  it('refuses to start with a push secret shorter than 32 characters, without saying it', async () => {
    const short = 'guessable-secret-31-characters!';
    expect(short).toHaveLength(31);
    const refused = startWith({ EVENTS_SECRET: short });
    await expect(refused).rejects.toThrow(
      'changeEvents.secretEnv: EVENTS_SECRET holds 31 characters, the push secret needs at least 32',
    );
    await expect(refused).rejects.not.toThrow(short);
  });
});
