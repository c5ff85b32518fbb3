import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStore } from '../../src/ports/store.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { closedPort } from '../helpers/ports.js';
import { waitFor, withStoreAt } from '../helpers/process-wait.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/**
 * A `driftgate check` run from a terminal while `serve` restarts beside it: serve's start interrupts only
 * the runs whose process is gone, so the check keeps its run and finishes it. The check is held in the
 * middle of its work by its state backend (terraform's `http` backend on a loopback server that answers
 * only when the test lets it), the way a slow remote state holds a real one.
 */
let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let config: string;
let backend: Server;
const held: (() => void)[] = [];
let open = false;
let requests = 0;

const withStore = async <T>(fn: (store: RunStore) => Promise<T>): Promise<T> =>
  await withStoreAt(join(tf.dir, 'data', 'driftgate.db'), fn);

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-check-beside-serve-');
  backend = createServer((req, res) => {
    requests++;
    // No state yet: the http backend reads a 404 as an empty state.
    const answer = () => res.writeHead(404).end();
    if (open) answer();
    else held.push(answer);
    req.resume();
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const { port } = backend.address() as { port: number };
  const stackDir = join(tf.dir, 'app');
  await mkdir(stackDir);
  await writeFile(
    join(stackDir, 'main.tf'),
    `terraform {\n  backend "http" {\n    address = "http://127.0.0.1:${port}/state"\n  }\n}\nresource "terraform_data" "app" {\n  input = "v1"\n}\n`,
  );
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env };
  config = join(tf.dir, 'driftgate.yml');
  await writeFile(
    config,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      log: { level: 'silent' },
      stacks: [stackEntry('app', stackDir, { schedule: '0 0 1 1 *', emptyState: 'plan' })],
    }),
  );
}, 60_000);

afterAll(async () => {
  for (const answer of held) answer();
  await new Promise((resolve) => backend.close(resolve));
  await tf.cleanup();
});

/** Starts serve and waits until it is ready (wrapped: a returned ResultPromise would be awaited to its end). */
async function startServe(): Promise<{ serve: ResultPromise }> {
  const port = await closedPort();
  const serve = execa('node', [BIN, 'serve', '--config', config, '--port', String(port)], {
    env,
    extendEnv: false,
    reject: false,
    detached: true,
  });
  await waitFor('serve to be ready', async () => {
    if (serve.exitCode !== null) throw new Error(`serve exited: ${(await serve).stderr}`);
    return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined;
  });
  return { serve };
}

describe.skipIf(!HAS_BUILD)(`a check beside a restarting serve (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('keeps its run through two starts of serve (one killed) and finishes it', async () => {
    // Failed before runs recorded their owner: serve's start marked the check's run interrupted.
    const check = execa('node', [BIN, 'check', 'app', '--config', config], { env, extendEnv: false, reject: false });
    await waitFor('the check to reach its backend', () => (requests > 0 ? true : undefined));
    const [run] = await withStore((s) => s.listRuns({ stack: 'app' }));
    expect(run?.state).toBe('planning');

    const { serve: first } = await startServe();
    process.kill(-first.pid!, 'SIGKILL');
    await first;
    const { serve: second } = await startServe();
    expect(await withStore(async (s) => (await s.getRun(run!.id))?.state)).toBe('planning');
    expect(await withStore(async (s) => (await s.getLock('app'))?.runId)).toBe(run!.id);

    open = true;
    for (const answer of held.splice(0)) answer();
    const result = await check;
    expect(result.exitCode, result.stderr).not.toBe(1);
    expect(await withStore(async (s) => (await s.getRun(run!.id))?.state)).toBe('drifted');
    second.kill('SIGTERM');
    await second;
  }, 120_000);
});
