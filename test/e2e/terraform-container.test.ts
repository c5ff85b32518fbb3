import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON, runCli } from '../helpers/cli.js';
import { stackEntry } from '../helpers/config-builder.js';
import { closedPort } from '../helpers/ports.js';
import { usePostgres } from '../helpers/postgres.js';
import { type PoolWorld, poolToken, startPoolWorld, topLevel } from '../helpers/pool-world.js';
import { waitFor } from '../helpers/process-wait.js';
import { LEAD1 } from './fixtures.js';
import { localExecStack } from '../helpers/stack-files.js';

/** The terraform container's uid and the pod's fsGroup, as a pod's second container would run. */
const TERRAFORM_UID = 10100;
const IS_ROOT = process.getuid?.() === 0;
const GUARDED = 'dev/guarded';
const OPEN = 'dev/open';
/** A worker on a host: terraform as another user (nobody) with runners.runAs, on its Git stack too. */
const RUN_AS = 'dev/runas';
const NOBODY = { uid: 65534, gid: 65534 };

const postgres = usePostgres();
let world: PoolWorld | undefined;
let repo: TestRepo | undefined;
const started: ResultPromise[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) {
    child.kill('SIGTERM');
    await child;
  }
  await world?.close();
  await repo?.cleanup();
  world = undefined;
  repo = undefined;
});

/**
 * A module that looks for its worker from the inside: the pool token in the environment of every process
 * it can read (all of /proc, not only its ancestors), its parent's environment, and the data dirs of the
 * driftgate processes. It writes what it found to `report`.
 */
function attackStack(report: string, dataDirs: string): string {
  const script = `
out=${report}
{
  echo "uid $(id -u)"
  for f in /proc/[0-9]*/environ; do
    cat $f 2>/dev/null | tr '\\0' '\\n' | grep '^DRIFTGATE_POOL_TOKEN=' | sed "s|^|found in $f: |"
  done
  if tr '\\0' '\\n' < /proc/$PPID/environ > /dev/null 2>&1; then echo "environ of the parent: read"; else echo "environ of the parent: denied"; fi
  for d in ${dataDirs}; do
    if ls -A "$d" > /dev/null 2>&1; then echo "data dir $d: read"; else echo "data dir $d: denied"; fi
  done
} > "$out.tmp" 2>&1
mv "$out.tmp" "$out"
`;
  return localExecStack(script);
}

/** A process of ours, stopped after the test; resolves once `ready` says so (it throws if it exited). */
async function startProcess(what: string, child: ResultPromise, ready: () => Promise<boolean>): Promise<string[]> {
  started.push(child);
  const lines: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  await waitFor(`${what} to be ready`, async () => {
    if (child.exitCode !== null) throw new Error(`${what} exited: ${lines.join('\n')}`);
    return (await ready()) ? true : undefined;
  });
  return lines;
}

describe.skipIf(!HAS_BUILD || !IS_ROOT)(
  `terraform in a container beside its worker (${!HAS_BUILD ? NO_BUILD_REASON : !IS_ROOT ? 'needs root to start the terraform container as another uid' : BIN})`,
  () => {
    it('a module run through the terraform container, or as runAs’s user on a host, finds neither the pool token nor the worker’s files; spawned by the worker, it finds both', async () => {
      const databaseUrl = await postgres.createDatabase();
      repo = await makeTestRepo();
      world = await startPoolWorld({
        databaseUrl,
        stacks: {},
        config: {
          runners: { type: 'workers', agent: { host: '127.0.0.1' } },
          source: { git: { url: repo.url } },
          stacks: [
            stackEntry(GUARDED, 'guarded', {
              environment: 'dev',
              mode: 'auto-apply',
              pool: 'guarded',
              emptyState: 'plan',
            }),
            stackEntry(OPEN, 'open', { environment: 'dev', mode: 'auto-apply', pool: 'open', emptyState: 'plan' }),
            stackEntry(RUN_AS, 'runas', { environment: 'dev', mode: 'auto-apply', pool: 'runas', emptyState: 'plan' }),
          ],
        },
      });
      const w = world;
      const reports = join(w.tf.dir, 'reports');
      const shared = join(w.tf.dir, 'shared');
      // The terraform user lists the test's dir (to find the data dirs, each 0700), and writes its report;
      // the shared dir is the pod's emptyDir, its group the pod's fsGroup.
      await chmod(w.tf.dir, 0o755);
      await mkdir(reports, { mode: 0o777 });
      await chmod(reports, 0o777);
      await mkdir(shared);
      await chown(shared, 0, TERRAFORM_UID);
      await chmod(shared, 0o2770);
      const dataDirs = join(w.tf.dir, 'data-*');
      await repo.commit(
        {
          'guarded/main.tf': attackStack(join(reports, 'guarded.txt'), dataDirs),
          'open/main.tf': attackStack(join(reports, 'open.txt'), dataDirs),
          'runas/main.tf': attackStack(join(reports, 'runas.txt'), dataDirs),
        },
        'three stacks',
      );

      // The guarded worker's config: the world's, with terraform in the container beside it; the runas
      // worker's: the world's, with terraform as nobody.
      const workerConfig = async (name: string, runners: Record<string, unknown>) => {
        const path = join(w.tf.dir, `driftgate-${name}.yml`);
        const config = parse(await readFile(w.configFile, 'utf8')) as { runners: Record<string, unknown> };
        Object.assign(config.runners, runners);
        await writeFile(path, stringify(config));
        return path;
      };
      const guardedConfig = await workerConfig('guarded', { terraformContainer: { dir: shared } });
      const runAsConfig = await workerConfig('runas', { runAs: NOBODY });

      // The container refuses to start holding the pool's token, and names it.
      const refused = await runCli(['terraform-runner', '--dir', shared], {
        cwd: w.tf.dir,
        env: { PATH: process.env.PATH, DRIFTGATE_POOL_TOKEN: 'dgp_not_for_terraform' },
      });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('environment DRIFTGATE_POOL_TOKEN');

      const serve = await w.serve();
      // One address in front of the control plane's agent port (the world's Service).
      const agentUrl = w.agentUrl;
      const guardedToken = await poolToken(w, 'guarded');
      const openToken = await poolToken(w, 'open');
      const runAsToken = await poolToken(w, 'runas');
      const socket = join(shared, 'terraform.sock');
      await startProcess(
        'the terraform container',
        execa('node', [BIN, 'terraform-runner', '--dir', shared], {
          env: { PATH: process.env.PATH, HOME: shared, ...w.tf.env },
          extendEnv: false,
          reject: false,
          uid: TERRAFORM_UID,
          gid: TERRAFORM_UID,
          cwd: shared,
        }),
        async () => existsSync(socket),
      );
      // Every request is checked: a program of its own, or a working dir outside the shared dir, is refused.
      const ask = (body: unknown) =>
        new Promise<{ status: number; text: string }>((resolve, reject) => {
          const call = request({ socketPath: socket, path: '/run', method: 'POST' }, (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => {
              text += chunk.toString('utf8');
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          });
          call.on('error', reject);
          call.end(JSON.stringify(body));
        });
      const command = { args: ['version'], cwd: shared, env: {}, timeoutMs: 10_000, killGraceMs: 1_000 };
      expect(await ask({ ...command, file: '/bin/sh' })).toEqual({
        status: 400,
        text: expect.stringContaining('Unrecognized key: "file"'),
      });
      expect(await ask({ ...command, cwd: '/etc' })).toEqual({ status: 400, text: `cwd: /etc is outside ${shared}` });
      expect(await ask({ ...command, cwd: join(shared, '..') })).toMatchObject({ status: 400 });

      /** A worker started by hand with its own config (the world's workers all take the world's). */
      const startWorker = async (pool: string, config: string, token: string) => {
        const healthPort = await closedPort();
        await startProcess(
          `the ${pool} worker`,
          execa('node', [BIN, 'worker', '--pool', pool, '--config', config, '--port', String(healthPort)], {
            env: {
              PATH: process.env.PATH,
              HOME: process.env.HOME,
              ...w.tf.env,
              DRIFTGATE_DATA_DIR: join(w.tf.dir, `data-worker-${pool}`),
              DRIFTGATE_CONTROL_PLANE_URL: agentUrl,
              DRIFTGATE_POOL_TOKEN: token,
            },
            extendEnv: false,
            reject: false,
            cwd: w.tf.dir,
          }),
          async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => undefined))?.status === 200,
        );
      };
      await startWorker('guarded', guardedConfig, guardedToken);
      await startWorker('runas', runAsConfig, runAsToken);
      await w.worker('open', { DRIFTGATE_CONTROL_PLANE_URL: agentUrl, DRIFTGATE_POOL_TOKEN: openToken });

      expect((await w.command(serve, `check ${GUARDED} ${OPEN} ${RUN_AS}`, LEAD1)).status).toBe(200);
      const report = async (name: string) => {
        const path = join(reports, `${name}.txt`);
        await waitFor(`the ${name} module to report`, () => (existsSync(path) ? true : undefined), 120_000);
        return readFile(path, 'utf8');
      };
      const guarded = await report('guarded');
      const open = await report('open');
      const runAs = await report('runas');

      // Through the container: its own uid, no token anywhere it can read, no data dir, not its parent's
      // environment (terraform's, which it may read) holding anything of the worker's.
      expect(guarded).toContain(`uid ${TERRAFORM_UID}`);
      expect(guarded).not.toContain('DRIFTGATE_POOL_TOKEN=');
      expect(guarded).not.toContain(guardedToken);
      expect(guarded).toMatch(/data dir \S+data-worker-guarded: denied/);
      expect(guarded).not.toMatch(/data dir \S+: read/);
      // As the runas worker's user, in a copy of the commit: the same, on a host.
      expect(runAs).toContain(`uid ${NOBODY.uid}`);
      expect(runAs).not.toContain('DRIFTGATE_POOL_TOKEN=');
      expect(runAs).not.toContain(runAsToken);
      expect(runAs).toContain('environ of the parent: read'); // terraform's own, as nobody
      expect(runAs).toMatch(/data dir \S+data-worker-runas: denied/);
      expect(runAs).not.toMatch(/data dir \S+: read/);
      // Spawned by its worker, the same module reads the token from the worker's environment, and its files.
      expect(open).toContain(`DRIFTGATE_POOL_TOKEN=${openToken}`);
      expect(open).toMatch(/data dir \S+data-worker-open\S*: read/);

      // Every plan reached the control plane and was applied; the container's plan was read back from it.
      for (const stack of [GUARDED, OPEN, RUN_AS])
        await waitFor(
          `${stack} to be applied`,
          () =>
            w.withStore(async (s) =>
              (await s.listRuns({ stack })).some((r) => r.state === 'applied') ? true : undefined,
            ),
          120_000,
        );
      expect(topLevel(w).some((m) => JSON.stringify(m).includes(GUARDED))).toBe(true);
    });
  },
);
