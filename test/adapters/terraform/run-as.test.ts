import { access, chmod, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import {
  prepareSandbox,
  RUN_AS_CAPABILITIES,
  runAsRefusal,
  sweepLeftovers,
} from '../../../src/adapters/terraform/run-as.js';
import { checkRunAs } from '../../../src/app/doctor/terraform-checks.js';
import { validateConfigText } from '../../../src/config/load.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../../helpers/cli.js';

const ALL_CAPS = 0x1ffffffffffn;
const NOBODY = { uid: 65534, gid: 65534 };

describe('runAsRefusal', () => {
  it.each([
    ['root with its capabilities', { uid: 0, gid: 0, capEff: ALL_CAPS }, undefined],
    ['root where /proc cannot say', { uid: 0, gid: 0, capEff: undefined }, undefined],
    ['a user given the capabilities (systemd AmbientCapabilities)', { uid: 1000, gid: 1000, capEff: 0xe3n }, undefined],
    ['a user without them', { uid: 1000, gid: 1000, capEff: 0n }, RUN_AS_CAPABILITIES.join(', ')],
    ['root stripped of CAP_SETUID (a container dropping ALL)', { uid: 0, gid: 0, capEff: 0x63n }, 'lacks CAP_SETUID.'],
    ['a user where /proc cannot say', { uid: 1000, gid: 1000, capEff: undefined }, 'Start it as root with runAs set'],
  ])('%s', (_, self, refused) => {
    const refusal = runAsRefusal(NOBODY, self);
    if (refused === undefined) expect(refusal).toBeUndefined();
    else expect(refusal).toContain(refused);
  });

  it('refuses to run terraform as driftgate itself: no boundary', () => {
    expect(runAsRefusal({ uid: 1000, gid: 1000 }, { uid: 1000, gid: 1000, capEff: ALL_CAPS })).toContain(
      "runAs.uid 1000 is driftgate's own uid",
    );
  });
});

describe('driftgate doctor', () => {
  it.skipIf(process.getuid?.() !== 0)('says who terraform runs as, when this process can switch (root)', async () => {
    expect(await checkRunAs({ runAs: { ...NOBODY, dir: '/srv/tf' } })).toEqual({
      check: 'run as',
      status: 'ok',
      message: 'terraform runs as uid 65534, gid 65534, in /srv/tf',
    });
    expect(await checkRunAs({})).toBeUndefined();
  });
});

describe('runners.runAs in the config', () => {
  const parse = (runners: string, stacks = '  - { name: dev/site, dir: /srv/stacks/dev }') =>
    validateConfigText(
      ['version: 1', 'dataDir: /var/lib/driftgate', `runners: ${runners}`, 'stacks:', stacks].join('\n'),
      {
        baseDir: '/srv/driftgate',
        env: {},
      },
    );

  it('puts the user’s dir beside the data dir, and the plugin cache in it', async () => {
    const { config, issues } = await parse('{ type: local, runAs: { uid: 65534, gid: 65534 } }');
    expect(issues).toEqual([]);
    expect(config?.runAs).toEqual({ uid: 65534, gid: 65534, dir: '/var/lib/driftgate-terraform' });
    expect(config?.terraform.pluginCacheDir).toBe('/var/lib/driftgate-terraform/plugin-cache');
  });

  it('refuses root and a dir inside the data dir, saying where; takes stacks from Git', async () => {
    expect((await parse('{ type: local, runAs: { uid: 0, gid: 0 } }')).issues.map((i) => i.path)).toEqual([
      'runners.runAs.uid',
      'runners.runAs.gid',
    ]);
    const inside = await parse('{ type: local, runAs: { uid: 65534, gid: 65534, dir: /var/lib/driftgate/tf } }');
    expect(inside.issues).toEqual([
      expect.objectContaining({ path: 'runners.runAs.dir', message: expect.stringContaining('overlaps the data dir') }),
    ]);
    const git = await parse(
      '{ type: local, runAs: { uid: 65534, gid: 65534 } }',
      '  - { name: dev/site, dir: stacks/dev, source: { git: { url: "https://github.com/o/r" } } }',
    );
    expect(git.issues).toEqual([]);
  });
});

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe.skipIf(!HAS_BUILD || process.getuid?.() !== 0)(
  `a process that cannot switch users (${!HAS_BUILD ? NO_BUILD_REASON : process.getuid?.() !== 0 ? 'needs root to start one as another user' : BIN})`,
  () => {
    it('does not start with runAs, and says how to start it', async () => {
      dir = await mkdtemp(join(tmpdir(), 'driftgate-runas-'));
      await chmod(dir, 0o777);
      const config = join(dir, 'driftgate.yml');
      await writeFile(
        config,
        `version: 1\ndataDir: ${dir}/data\nrunners: { type: local, runAs: { uid: 65533, gid: 65533 } }\nstacks: [{ name: dev/site, dir: ${dir} }]\n`,
      );
      await chmod(config, 0o644);
      const run = await execa('node', [BIN, 'check', '--all', '--config', config], {
        ...NOBODY,
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir },
        extendEnv: false,
        reject: false,
      });
      expect(run.exitCode).not.toBe(0);
      expect(run.stderr).toContain(
        'runners.runAs: driftgate (uid 65534) cannot switch to uid 65533: it lacks CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_KILL, CAP_SETGID, CAP_SETUID. Start it as root with runAs set',
      );
    });
  },
);

/** A laid-out sandbox in a fresh dir; `plant` writes, as the user, a tree with a link to root's `victim`. */
async function plantedSandbox(prefix: string) {
  const base = await mkdtemp(join(tmpdir(), prefix));
  await chmod(base, 0o755);
  const victim = join(base, 'victim');
  await mkdir(victim, { mode: 0o755 });
  await writeFile(join(victim, 'keep'), 'root-owned');
  const repo = join(base, 'repo');
  await mkdir(repo, { mode: 0o755 });
  await writeFile(join(repo, 'main.tf'), '# stack\n');
  const runAs = { ...NOBODY, dir: join(base, 'tf') };
  const sandbox = await prepareSandbox(runAs, join(base, 'tf', 'cache'));
  const plant = (dir: string) =>
    execa('sh', ['-c', `mkdir -p "${dir}/a/b" && echo x > "${dir}/a/b/f" && ln -s "${victim}" "${dir}/a/link"`], {
      ...NOBODY,
    });
  const victimKept = async () => expect(await readFile(join(victim, 'keep'), 'utf8')).toBe('root-owned');
  return { base, repo, runAs, sandbox, plant, victimKept };
}

/**
 * What terraform's user leaves in its dirs is removed by that user, not walked by root: a tree the user
 * wrote (nested dirs, a link to root's files) goes, and what the link points to stays.
 */
describe.skipIf(process.getuid?.() !== 0)('removing what the run-as user wrote', () => {
  it('empties and removes the run dir and the checkout copy, never following a link', async () => {
    const { base, repo, sandbox, plant, victimKept } = await plantedSandbox('driftgate-run-as-rm-');
    try {
      let runDir = '';
      await sandbox.withRunDir({ 'plan.tfplan': 'x' }, async (dir) => {
        runDir = dir;
        await plant(dir);
      });
      const copy = await sandbox.takeIn(repo);
      await plant(copy.dir);
      await copy.remove();
      await expect(access(runDir)).rejects.toThrow();
      await expect(access(copy.dir)).rejects.toThrow();
      expect(await readdir(join(base, 'tf', 'checkouts'))).toEqual([]);
      await victimKept();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('sweeps the run dirs and checkout copies a killed process left, once older than any live one, as the user', async () => {
    const { base, repo, runAs, sandbox, plant, victimKept } = await plantedSandbox('driftgate-run-as-sweep-');
    try {
      // A process killed mid-run leaves its run dir and its checkout copy (it never reached their removal).
      let leftRun = '';
      await sandbox.withRunDir({ 'plan.tfplan': 'x' }, async (dir) => {
        await plant(dir);
        leftRun = `${dir}-left`;
        await execa('cp', ['-a', dir, leftRun]);
      });
      const leftCopy = await sandbox.takeIn(repo);
      await plant(leftCopy.dir);
      // And another process on the machine is at work in its own, made just now.
      const live = await sandbox.takeIn(repo);
      const hourAgo = new Date(Date.now() - 3600_000);
      const leftCheckout = join(leftCopy.dir, '..');
      for (const path of [leftRun, leftCheckout]) await utimes(path, hourAgo, hourAgo);

      const { removed, failed } = await sweepLeftovers(runAs, Date.now() - 1800_000);
      expect(failed).toEqual([]);
      expect(removed.sort()).toEqual([leftCheckout, leftRun].sort());
      await expect(access(leftRun)).rejects.toThrow();
      await expect(access(leftCheckout)).rejects.toThrow();
      expect(await readdir(live.dir)).toEqual(['main.tf']);
      await victimKept();
      // Nothing older is left: a second sweep (another process starting) removes nothing.
      expect(await sweepLeftovers(runAs, Date.now() - 1800_000)).toEqual({ removed: [], failed: [] });
      await live.remove();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
