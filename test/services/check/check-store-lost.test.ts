import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';
import { StoreUnavailableError } from '../../../src/domain/errors.js';
import { checkStack } from '../../../src/services/check/check-stack.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { usePostgres } from '../../helpers/postgres.js';
import { holdStateLock } from '../../helpers/state-lock.js';
import { waitFor } from '../../helpers/process-wait.js';

const NETWORK = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.0.0.0/16", tags = { Name = "main", Team = "core" } }
}
`;

const postgres = usePostgres();
let app: TestApp | undefined;
afterEach(async () => {
  await app?.close().catch(() => undefined);
  app = undefined;
});

/**
 * Found by the soak (both `serve` replicas ended by a Postgres restart): a check whose store went away
 * while terraform planned could not record its failure, and that rejection was left unhandled behind the
 * stack lock's release, which ends a process. The check now fails to its caller, and the process goes on.
 */
describe('a check that loses its store', () => {
  it('fails to its caller, with nothing left unhandled, when Postgres stops while terraform plans', async () => {
    app = await makeTestApp({
      stacks: { network: NETWORK },
      config: { store: { type: 'postgres', url: '${DATABASE_URL}' } },
      env: { DATABASE_URL: await postgres.createDatabase() },
    });
    const a = app;
    const stack = a.context.stack('network')!;
    await a.applyWithTerraform('network');
    await editResourceInput(
      { binary: 'terraform', env: a.env },
      stack.dir,
      { type: 'terraform_data', name: 'vpc' },
      (input) => {
        (input.tags as Record<string, string>).Team = 'console-cowboy';
      },
    );
    // A person's terraform waits for "yes" holding the state lock: the check's plan waits behind it.
    const { terraform: holder } = await holdStateLock(stack.dir, a.env);
    const checked = checkStack(a.context.deps, stack, { trigger: 'manual' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    await waitFor('the check to plan', async () =>
      (await a.context.store.listRuns({ states: ['planning'] })).length > 0 ? true : undefined,
    );
    await postgres.outage!.begin();
    holder.stdin?.end('no\n');
    await holder;
    try {
      expect(await checked).toBeInstanceOf(StoreUnavailableError);
    } finally {
      await postgres.outage!.end();
    }
  });
});
