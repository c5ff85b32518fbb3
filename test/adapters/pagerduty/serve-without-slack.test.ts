import { join } from 'node:path';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { startServe } from '../../../src/app/serve.js';
import { parseConfig } from '../../../src/config/load.js';
import { configYaml } from '../../helpers/config-builder.js';
import { startPagerdutyReceiver } from '../../helpers/pagerduty-receiver.js';
import { lineSink, writeStacks } from '../../helpers/stack-files.js';
import { makeTerraformEnv } from '../../helpers/terraform-env.js';
import { NETWORK } from '../../e2e/fixtures.js';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';

it('serve without Slack still pages', async () => {
  const receiver = await startPagerdutyReceiver();
  const tf = await makeTerraformEnv('driftgate-pd-');
  const root = join(tf.dir, 'repo');
  const stacks = await writeStacks(root, { 'prod/network': NETWORK }, { 'prod/network': { environment: 'prod' } });
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...tf.env,
    PD_KEY_PROD: 'c0ffee00c0ffee00c0ffee00c0ffee00',
    PAGERDUTY_EVENTS_URL: receiver.eventsUrl,
  };
  const config = await parseConfig(
    configYaml({
      dataDir: join(tf.dir, 'data'),
      defaults: { jitter: '0s', schedule: '0 0 1 1 *' },
      pagerduty: { routing: [{ routingKeyEnv: 'PD_KEY_PROD' }] },
      stacks,
    }),
    { baseDir: root, env },
  );
  const { stream } = lineSink();
  const running = await startServe(config, {
    env,
    port: 0,
    host: '127.0.0.1',
    logDestination: stream,
    outboxPollMs: 20,
  });
  const cwd = join(root, 'prod/network');
  await execa('terraform', ['init', '-input=false'], { cwd, env, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd, env, extendEnv: false });
  await editResourceInput({ binary: 'terraform', env }, cwd, { type: 'terraform_data', name: 'vpc' }, (input) => {
    (input.tags as Record<string, string>).Team = 'x';
  });
  await running.scheduler.request('prod/network');
  for (let i = 0; i < 100 && receiver.accepted().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  await running.stop();
  await receiver.close();
  await tf.cleanup();
  expect(receiver.accepted().map((p) => p.event_action)).toEqual(['trigger']);
});
