import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EVENTS_URL, pagerdutySettingsFor } from '../../../src/adapters/pagerduty/env.js';
import { parseConfig, validateConfigText } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/domain/errors.js';
import { pageRouteFor } from '../../../src/domain/oncall/route.js';

const KEY_PROD = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const KEY_REST = 'ffffeeeeddddccccbbbbaaaa99998888';

const CONFIG = `
stacks:
  - { name: prod/networking, dir: net, environment: prod }
  - { name: prod/database, dir: db, environment: prod }
  - { name: staging/app, dir: app, environment: staging }
  - { name: sandbox/lab, dir: lab }
pagerduty:
  routing:
    - { stacks: "prod/database", routingKeyEnv: PD_KEY_DBA }
    - { environments: [prod], routingKeyEnv: PD_KEY_PROD }
    - { environments: [staging], stacks: "staging/*", routingKeyEnv: PD_KEY_REST }
  severity: { prod: critical, staging: warning }
`;

/** With `version: 1`, and a stack when the text names none. */
const complete = (text: string) =>
  `version: 1\n${text.includes('stacks:') ? '' : 'stacks: [{ name: a, dir: a }]\n'}${text}`;
const parse = (text: string) => parseConfig(complete(text), { baseDir: tmpdir(), env: {} });

describe('pagerduty config', () => {
  it('resolves the section and routes each stack by its first matching rule', async () => {
    const config = await parse(CONFIG);
    expect(config.pagerduty).toMatchObject({ severity: { prod: 'critical', staging: 'warning' } });
    const routes = Object.fromEntries(config.stacks.map((s) => [s.name, pageRouteFor(config.pagerduty, s)]));
    expect(routes).toEqual({
      'prod/networking': { routingKeyEnv: 'PD_KEY_PROD', severity: 'critical' },
      'prod/database': { routingKeyEnv: 'PD_KEY_DBA', severity: 'critical' },
      'staging/app': { routingKeyEnv: 'PD_KEY_REST', severity: 'warning' },
      'sandbox/lab': undefined,
    });
  });

  it.each([
    { env: 'dev', severity: 'error' },
    { env: undefined, severity: 'error' },
    { env: 'constructor', severity: 'error' },
  ])('an environment without a severity ($env) pages as error', async ({ env, severity }) => {
    const config = await parse('pagerduty:\n  routing: [{ routingKeyEnv: PD_KEY }]\n');
    expect(pageRouteFor(config.pagerduty, { name: 'x', ...(env ? { environment: env } : {}) })).toEqual({
      routingKeyEnv: 'PD_KEY',
      severity,
    });
  });

  it('no pagerduty section: nothing pages', async () => {
    const config = await parse('stacks: [{ name: a, dir: a, environment: prod }]\n');
    expect(config.pagerduty).toBeUndefined();
    expect(pageRouteFor(config.pagerduty, config.stacks[0]!)).toBeUndefined();
  });

  it.each([
    {
      name: 'a key in the file',
      yaml: `routing: [{ routingKey: ${KEY_PROD} }]`,
      path: 'pagerduty.routing[0]',
      message: 'unknown key "routingKey"',
    },
    {
      name: 'a key where its variable goes',
      yaml: `routing: [{ routingKeyEnv: ${KEY_PROD} }]`,
      path: 'pagerduty.routing[0].routingKeyEnv',
      message: 'looks like a routing key itself',
    },
    {
      name: 'not a variable name',
      yaml: 'routing: [{ routingKeyEnv: "pd key" }]',
      path: 'pagerduty.routing[0].routingKeyEnv',
      message: 'the name of an environment variable',
    },
    { name: 'no routing', yaml: 'routing: []', path: 'pagerduty.routing', message: '' },
    {
      name: 'an unknown severity',
      yaml: 'routing: [{ routingKeyEnv: K }]\n  severity: { prod: high }',
      path: 'pagerduty.severity.prod',
      message: 'must be one of "critical", "error", "warning", "info"',
    },
  ])('refuses $name, and never quotes a key', async ({ yaml, path, message }) => {
    const result = await validateConfigText(complete(`pagerduty:\n  ${yaml}\n`), { baseDir: tmpdir(), env: {} });
    expect(result.issues).toContainEqual({ path, message: expect.stringContaining(message) });
    expect(JSON.stringify(result.issues)).not.toContain(KEY_PROD);
  });
});

describe('pagerdutySettingsFor', () => {
  const config = {
    pagerduty: {
      routing: [{ routingKeyEnv: 'PD_KEY_PROD' }, { routingKeyEnv: 'PD_KEY_REST' }, { routingKeyEnv: 'PD_KEY_PROD' }],
    },
  };

  it('is off without a pagerduty section, whatever the environment', () => {
    expect(pagerdutySettingsFor({}, { PAGERDUTY_EVENTS_URL: 'not a url' })).toBeUndefined();
  });

  it('takes the keys from the variables the routing names, and the US endpoint unless told otherwise', () => {
    const settings = pagerdutySettingsFor(config, { PD_KEY_PROD: KEY_PROD, PD_KEY_REST: KEY_REST })!;
    expect(settings.eventsUrl).toBe(DEFAULT_EVENTS_URL);
    expect(settings.routingKey('PD_KEY_PROD')).toBe(KEY_PROD);
    expect(settings.routingKey('PD_KEY_OTHER')).toBeUndefined();
    const eu = pagerdutySettingsFor(config, {
      PD_KEY_PROD: KEY_PROD,
      PD_KEY_REST: KEY_REST,
      PAGERDUTY_EVENTS_URL: 'https://events.eu.pagerduty.com/v2/enqueue',
    });
    expect(eu!.eventsUrl).toBe('https://events.eu.pagerduty.com/v2/enqueue');
  });

  it('fails before anything starts on a missing or malformed key, naming the variable and never the value', () => {
    const malformed = `${KEY_REST}\n`;
    let error: unknown;
    try {
      pagerdutySettingsFor(config, { PD_KEY_REST: malformed, PAGERDUTY_EVENTS_URL: 'ftp://example.com' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      { path: 'env.PAGERDUTY_EVENTS_URL', message: expect.stringContaining('http(s) URL') },
      { path: 'env.PD_KEY_PROD', message: expect.stringContaining('is not set') },
      { path: 'env.PD_KEY_REST', message: expect.stringContaining('32 letters and digits') },
    ]);
    expect((error as ConfigError).message).not.toContain(KEY_REST);
  });
});
