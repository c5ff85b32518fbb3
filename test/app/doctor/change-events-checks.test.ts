import { describe, expect, it } from 'vitest';
import { checkChangeEvents } from '../../../src/app/doctor/change-events-checks.js';
import { validateConfigText } from '../../../src/config/load.js';

/** The push secret as `doctor` sees it: what serve would refuse at start is a FAIL here, not an ok. */
describe('doctor on the push secret', () => {
  const check = async (env: Record<string, string>) => {
    const { config, issues } = await validateConfigText(
      [
        'version: 1',
        'stacks:',
        '  - { name: prod/site, dir: /srv/stacks/site }',
        'changeEvents:',
        '  secretEnv: EVENTS_SECRET',
        '  cloudTrail: { lookup: false }',
      ].join('\n'),
      { baseDir: '/srv/driftgate', env: {} },
    );
    expect(issues).toEqual([]);
    return (await checkChangeEvents(config!, env)).find((c) => c.check === 'change events push');
  };

  it('fails a secret shorter than 32 characters, saying its length and never its value', async () => {
    const short = 'a-31-character-secret-0123456789'.slice(0, 31);
    const result = await check({ EVENTS_SECRET: short });
    expect(result).toMatchObject({
      status: 'fail',
      message: 'EVENTS_SECRET (changeEvents.secretEnv) holds 31 characters, fewer than 32: serve refuses it',
    });
    expect(JSON.stringify(result)).not.toContain(short);
  });

  it('passes one of 32', async () => {
    expect(await check({ EVENTS_SECRET: 'x'.repeat(32) })).toMatchObject({ status: 'ok' });
  });
});
