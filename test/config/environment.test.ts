import { describe, expect, it } from 'vitest';
import { OWN_SECRETS } from '../../src/app/context.js';
import { environmentValue, readEnvironment, secretVariables, VARIABLES } from '../../src/config/environment.js';

describe('readEnvironment', () => {
  it('gives typed values, from the record passed in only', () => {
    const env = { METRICS_ADDRESS: '[::1]:9464', NO_COLOR: '1', PAGERDUTY_EVENTS_URL: undefined };
    const { values, issues } = readEnvironment(env, ['METRICS_ADDRESS', 'NO_COLOR', 'PAGERDUTY_EVENTS_URL', 'PORT']);
    expect(issues).toEqual([]);
    expect(values).toEqual({
      METRICS_ADDRESS: { host: '::1', port: 9464 },
      NO_COLOR: true,
      PAGERDUTY_EVENTS_URL: 'https://events.pagerduty.com/v2/enqueue',
    });
  });

  it('takes an empty value as unset where the variable says so', () => {
    const read = readEnvironment({ GITHUB_TOKEN: '', DRIFTGATE_POOL: '' }, ['GITHUB_TOKEN', 'DRIFTGATE_POOL']);
    expect(read).toEqual({ values: {}, present: new Set(), invalid: new Set(), issues: [] });
  });

  it('reads the proxy variables lowercase first, as curl does', () => {
    const env = { HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128', NO_PROXY: '.svc' };
    expect(readEnvironment(env, ['HTTPS_PROXY', 'NO_PROXY']).values).toEqual({
      HTTPS_PROXY: 'http://lower:3128',
      NO_PROXY: '.svc',
    });
  });

  it('names an invalid variable and its rule, never its value', () => {
    const secret = 'not-a-token-but-still-a-secret-5f2b1c9a';
    const read = readEnvironment({ SLACK_BOT_TOKEN: secret, GITHUB_APP_PRIVATE_KEY: secret }, [
      'SLACK_BOT_TOKEN',
      'GITHUB_APP_PRIVATE_KEY',
    ]);
    expect(read.invalid).toEqual(new Set(['SLACK_BOT_TOKEN', 'GITHUB_APP_PRIVATE_KEY']));
    expect(read.values).toEqual({});
    expect(read.issues.map((i) => i.path)).toEqual(['env.SLACK_BOT_TOKEN', 'env.GITHUB_APP_PRIVATE_KEY']);
    expect(JSON.stringify(read.issues)).not.toContain(secret);
  });

  it('gives one value at a time', () => {
    expect(environmentValue({ DRIFTGATE_CONFIG: 'ops/driftgate.yml' }, 'DRIFTGATE_CONFIG')).toBe('ops/driftgate.yml');
    expect(environmentValue({ METRICS_ADDRESS: 'nowhere' }, 'METRICS_ADDRESS')).toBeUndefined();
  });

  it('documents every variable: who reads it and what it is', () => {
    const undocumented = Object.entries(VARIABLES).filter(([, v]) => !v.readBy || !v.description);
    expect(undocumented).toEqual([]);
  });

  it('marks as secrets the credentials driftgate keeps from terraform, and keeps its own from terraform', () => {
    expect(OWN_SECRETS.filter((name) => !(secretVariables() as string[]).includes(name))).toEqual([]);
    // Every secret is driftgate's own but the cloud's keys, which terraform's providers may need.
    expect(secretVariables().filter((name) => !OWN_SECRETS.includes(name))).toEqual([
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
    ]);
  });
});
