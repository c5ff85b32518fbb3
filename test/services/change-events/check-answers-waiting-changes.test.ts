/**
 * A check answers the change events kept before its plan began, and only those: real terraform, a real
 * SQLite store and the check hooks serve and workers use. An event whose window closes while a check
 * plans is the next check's, which plans after it (the README's "the second attributes what came after
 * the first").
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckHooks } from '../../../src/app/change-events.js';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';
import { ChangeEventsConfig } from '../../../src/config/schema.js';
import type { PendingChanges } from '../../../src/ports/store.js';
import { checkStack } from '../../../src/services/check/check-stack.js';
import type { ServiceDeps } from '../../../src/services/runtime/deps.js';
import { matchedChange } from '../../domain/change-events/fixtures.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';

const NETWORK = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.0.0.0/16" }
}
`;

const change = (eventId: string) =>
  matchedChange(eventId, { stack: 'network', address: 'terraform_data.vpc', eventName: 'ModifyVpcAttribute' });
const ids = (read: PendingChanges) => read.changes.map((c) => c.eventId);

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('the change events a check answers', () => {
  it('are those kept before its plan began, whatever it found; later ones wait for the next check', async () => {
    app = await makeTestApp({ stacks: { network: NETWORK } });
    const { deps, store } = app.context;
    const stack = app.context.stack('network')!;
    await app.applyWithTerraform('network');
    const hooks = await startCheckHooks(
      ChangeEventsConfig.parse({ secretEnv: 'EVENTS_SECRET', cloudTrail: { lookup: false } }),
      {},
      deps,
      { account: 'driftgate', region: undefined },
    );
    try {
      const withEvents: ServiceDeps = { ...deps, changeEvents: hooks.checks };
      // Another replica keeps an event's changes while this check's terraform plans.
      let during: string | undefined;
      const keptWhilePlanning: ServiceDeps = {
        ...withEvents,
        terraform: {
          ...deps.terraform,
          plan: async (...args) => {
            if (during) await store.addPendingChanges('network', [change(during)]);
            return deps.terraform.plan(...args);
          },
        },
      };

      await store.addPendingChanges('network', [change('0000e001-0000')]);
      during = '0000e002-0000';
      expect((await checkStack(keptWhilePlanning, stack, { trigger: 'event' })).status).toBe('no_changes');
      expect(ids(await store.readPendingChanges('network'))).toEqual(['0000e002-0000']);

      // A check that finds changes answers them too: they do not pile up for a stack whose plan waits.
      await editResourceInput(
        { binary: 'terraform', env: app.env },
        stack.dir,
        { type: 'terraform_data', name: 'vpc' },
        (input) => {
          input.cidr = '10.9.0.0/16';
        },
      );
      during = '0000e003-0000';
      expect((await checkStack(keptWhilePlanning, stack, { trigger: 'event' })).status).toBe('drifted');
      expect(ids(await store.readPendingChanges('network'))).toEqual(['0000e003-0000']);

      // A check whose plan fails answers nothing: the changes wait for one that succeeds.
      const broken = join(stack.dir, 'broken.tf');
      await writeFile(broken, 'resource "terraform_data" {\n');
      expect((await checkStack(withEvents, stack, { trigger: 'event' })).status).toBe('errored');
      expect(ids(await store.readPendingChanges('network'))).toEqual(['0000e003-0000']);
      await rm(broken);

      expect((await checkStack(withEvents, stack, { trigger: 'event' })).status).toBe('drifted');
      expect(ids(await store.readPendingChanges('network'))).toEqual([]);
    } finally {
      hooks.stop();
    }
  });
});
