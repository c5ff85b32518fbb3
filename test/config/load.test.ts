import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  loadConfig,
  validateConfigText,
  parseConfig,
  resolveConfigPath,
  validateConfigFile,
} from '../../src/config/load.js';
import { ConfigError } from '../../src/domain/errors.js';
import { makeTempTree, type TempTree } from './temp-dir.js';

const FIXTURE = new URL('../fixtures/config/full.yml', import.meta.url);

let tree: TempTree;
beforeEach(async () => {
  tree = await makeTempTree();
});
afterEach(() => tree.cleanup());

describe('parseConfig', () => {
  it('resolves a full config: values kept, durations in ms, paths absolute', async () => {
    const text = await readFile(FIXTURE, 'utf8');
    const config = await parseConfig(text, { baseDir: tree.dir, env: { GITHUB_TOKEN: 'ghp_example' } });

    expect(config.baseDir).toBe(tree.dir);
    expect(config.dataDir).toBe(join(tree.dir, 'state'));
    expect(config.terraform).toEqual({
      binary: 'tofu',
      timeouts: { plan: 20 * 60_000, apply: 90 * 60_000, lock: 90_000, killGrace: 30_000 },
      outputLimitBytes: 65536,
      pluginCacheDir: join(tree.dir, 'state', 'plugin-cache'),
    });
    expect(config.artifacts).toEqual({
      type: 's3',
      bucket: 'drift-plans',
      prefix: 'driftgate/',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:4569',
      forcePathStyle: true,
      retention: 30 * 86_400_000,
    });
    expect(config.defaults).toEqual({
      schedule: '*/30 * * * *',
      jitter: 120_000,
      lockTtl: 120_000,
      concurrency: 3,
      mode: 'auto-minor',
      snooze: 24 * 3_600_000,
      maxPlanAge: 4 * 3_600_000,
      shutdownTimeout: 120_000,
      outboxRetention: 7 * 86_400_000,
      outboxDeadRetention: 14 * 86_400_000,
      notConvergingAfter: 12,
      pool: 'default',
      emptyState: 'report',
    });
    expect(config.log).toEqual({ level: 'debug' });
    expect(config.stacks).toEqual([
      {
        name: 'prod/networking',
        configKey: 'stacks[0]',
        dir: join(tree.dir, 'environments/prod/networking'),
        schedule: '0 */2 * * *',
        vars: { region: 'eu-west-1', replicas: 3, tags: { team: 'platform' } },
        varFiles: [join(tree.dir, 'environments/prod/networking/prod.tfvars'), '/etc/driftgate/common.tfvars'],
        env: { TF_LOG: 'warn', GITHUB_TOKEN: 'ghp_example' },
        workspace: 'blue',
        backendConfig: { bucket: 'tf-state', encrypt: true },
        environment: 'production',
        labels: ['core', 'network'],
        mode: 'alert',
        pool: 'default',
      },
      {
        name: 'sandbox',
        configKey: 'stacks[1]',
        dir: join(tree.dir, 'sandbox'),
        schedule: '*/30 * * * *',
        vars: {},
        varFiles: [],
        env: {},
        backendConfig: {},
        labels: [],
        mode: 'auto-minor',
        pool: 'default',
      },
    ]);
  });

  it('takes the data dir from dataDir, else $DRIFTGATE_DATA_DIR (relative to cwd), else .driftgate beside the file', async () => {
    const minimal = 'version: 1\nstacks:\n  - { name: app, dir: app }\n';
    const env = { DRIFTGATE_DATA_DIR: 'volume' };
    const fromEnv = await parseConfig(minimal, { baseDir: tree.dir, env, cwd: '/var/lib' });
    expect(fromEnv.dataDir).toBe('/var/lib/volume');
    expect(fromEnv.terraform.pluginCacheDir).toBe('/var/lib/volume/plugin-cache');
    expect(fromEnv.dataDirSetBy).toBe('the DRIFTGATE_DATA_DIR environment variable');
    const written = await parseConfig(`${minimal}dataDir: mine\n`, { baseDir: tree.dir, env, cwd: '/var/lib' });
    expect(written.dataDir).toBe(join(tree.dir, 'mine'));
    const neither = await parseConfig(minimal, { baseDir: tree.dir, env: {} });
    expect(neither.dataDir).toBe(join(tree.dir, '.driftgate'));
    expect(neither.dataDirSetBy).toMatch(/^the default: no dataDir in the config, no DRIFTGATE_DATA_DIR$/);
  });

  it('fills every default for a minimal config', async () => {
    const config = await parseConfig('version: 1\nstacks:\n  - { name: app, dir: app }\n', {
      baseDir: tree.dir,
      env: {},
    });
    expect(config.file).toBeUndefined();
    expect(config.dataDir).toBe(join(tree.dir, '.driftgate'));
    expect(config.terraform.binary).toBe('terraform');
    expect(config.terraform.timeouts).toEqual({ plan: 1_800_000, apply: 3_600_000, lock: 300_000, killGrace: 30_000 });
    expect(config.terraform.pluginCacheDir).toBe(join(tree.dir, '.driftgate', 'plugin-cache'));
    expect(config.artifacts).toEqual({ type: 'local', dir: join(tree.dir, '.driftgate', 'artifacts') });
    expect(config.defaults.concurrency).toBe(availableParallelism());
    expect(config.defaults.schedule).toBe('0 * * * *');
    expect(config.defaults.mode).toBe('alert');
    expect(config.log.level).toBe('info');
    expect(config.stacks.map((s) => [s.name, s.schedule, s.mode])).toEqual([['app', '0 * * * *', 'alert']]);
  });

  it('refuses an empty or comment-only file, saying how to add a stack', async () => {
    for (const text of ['', '# driftgate\n\n# nothing yet\n']) {
      const result = await validateConfigText(text, { baseDir: tree.dir, env: {} });
      expect(result.config).toBeUndefined();
      expect(result.issues).toEqual([
        { path: '', message: expect.stringMatching(/^the config file is empty: .*"stacks:".*"discover:"/) },
      ]);
    }
  });

  it('requires version, and stacks or discovery, each saying what to write', async () => {
    const result = await validateConfigText('dataDir: data\n', { baseDir: tree.dir, env: {} });
    expect(result.issues).toEqual([
      { path: 'version', message: 'required: add "version: 1" at the top of the file' },
      {
        path: 'stacks',
        message: expect.stringMatching(/^no stacks: list them under "stacks:" .* or find them with "discover:"/),
      },
    ]);
  });

  it('resolves explicit local artifact and plugin cache dirs against the base dir', async () => {
    const text =
      'version: 1\nstacks: [{ name: a, dir: a }]\nartifacts: { type: local, dir: plans }\nterraform: { pluginCacheDir: /var/cache/tf }\n';
    const config = await parseConfig(text, { baseDir: tree.dir, env: {} });
    expect(config.artifacts.dir).toBe(join(tree.dir, 'plans'));
    expect(config.terraform.pluginCacheDir).toBe('/var/cache/tf');
  });
});

describe('config file resolution', () => {
  const yml = (name: string) => `version: 1\nstacks:\n  - { name: ${name}, dir: . }\n`;

  it('prefers --config, then DRIFTGATE_CONFIG, then ./driftgate.yml', async () => {
    await tree.file('driftgate.yml', yml('from-cwd'));
    await tree.file('env/driftgate.yml', yml('from-env'));
    await tree.file('flag.yml', yml('from-flag'));
    const env = { DRIFTGATE_CONFIG: 'env/driftgate.yml' };

    const names = async (opts: { file?: string; env: Record<string, string> }) =>
      (await loadConfig({ cwd: tree.dir, ...opts })).stacks.map((s) => s.name);
    expect(await names({ file: 'flag.yml', env })).toEqual(['from-flag']);
    expect(await names({ env })).toEqual(['from-env']);
    expect(await names({ env: {} })).toEqual(['from-cwd']);
  });

  it('resolves relative paths against the config file, not the cwd', async () => {
    const file = await tree.file('deploy/driftgate.yml', yml('app'));
    const config = await loadConfig({ file: 'deploy/driftgate.yml', cwd: tree.dir, env: {} });
    expect(config.file).toBe(file);
    expect(config.baseDir).toBe(join(tree.dir, 'deploy'));
    expect(config.stacks[0]!.dir).toBe(join(tree.dir, 'deploy'));
  });

  it.each([
    [{ file: 'nope.yml' }, {}, 'nope.yml', 'given with --config'],
    [{}, { DRIFTGATE_CONFIG: 'missing.yml' }, 'missing.yml', 'DRIFTGATE_CONFIG'],
    [{}, {}, 'driftgate.yml', 'pass --config or set DRIFTGATE_CONFIG'],
  ])('names the missing file and how it was chosen (%j %j)', async (flag, env, name, how) => {
    const error = await loadConfig({ cwd: tree.dir, env, ...flag }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const { issues, file, code } = error as ConfigError;
    expect(code).toBe('CONFIG_INVALID');
    expect(file).toBe(join(tree.dir, name));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toContain(`config file ${join(tree.dir, name)} does not exist`);
    expect(issues[0]!.message).toContain(how);
  });

  it('takes a directory given as the config file for the driftgate.yml in it, and names that file when it has none', async () => {
    await tree.mkdir('conf.d');
    const result = await validateConfigFile({ file: 'conf.d', cwd: tree.dir, env: {} });
    expect(result.config).toBeUndefined();
    expect(result.issues[0]!.message).toBe(
      `config file ${join(tree.dir, 'conf.d', 'driftgate.yml')} does not exist (in the directory given with --config)`,
    );
    await tree.file('repo/driftgate.yml', 'version: 1\nstacks:\n  - { name: app, dir: app }\n');
    const found = await validateConfigFile({ cwd: tree.dir, env: { DRIFTGATE_CONFIG: 'repo' } });
    expect(found.file).toBe(join(tree.dir, 'repo', 'driftgate.yml'));
    expect(found.issues).toEqual([]);
  });

  it('finds driftgate.yml in a directory above the current one when none is given, as git finds its repository', async () => {
    await tree.file('repo/driftgate.yml', 'version: 1\nstacks:\n  - { name: app, dir: environments/app }\n');
    const deep = await tree.mkdir('repo/environments/app');
    const result = await validateConfigFile({ cwd: deep, env: {} });
    expect(result.file).toBe(join(tree.dir, 'repo', 'driftgate.yml'));
    expect(result.config?.stacks[0]?.dir).toBe(deep);
    const none = await validateConfigFile({ cwd: tree.dir, env: {} });
    expect(none.notFound).toBe(true);
    expect(none.issues[0]!.message).toContain('none here or in any directory above; run `driftgate init`');
  });

  it('reports the path resolution without touching the disk', () => {
    expect(resolveConfigPath({ cwd: '/srv', env: {} })).toMatchObject({ path: '/srv/driftgate.yml' });
    expect(resolveConfigPath({ cwd: '/srv', env: { DRIFTGATE_CONFIG: '/etc/dg.yml' } }).path).toBe('/etc/dg.yml');
  });
});

describe('validateConfigFile warnings', () => {
  it('warns about a missing stack dir and a dir without *.tf, but still loads', async () => {
    await tree.file('ok/main.tf', '');
    await tree.mkdir('empty');
    await tree.file(
      'driftgate.yml',
      'version: 1\nstacks:\n  - { name: ok, dir: ok }\n  - { name: gone, dir: gone }\n  - { name: empty, dir: empty }\n',
    );
    const result = await validateConfigFile({ cwd: tree.dir, env: {} });
    expect(result.issues).toEqual([]);
    expect(result.config?.stacks.map((s) => s.name)).toEqual(['ok', 'gone', 'empty']);
    expect(result.warnings).toEqual([
      {
        path: 'stacks[1].dir',
        message: expect.stringContaining(`${join(tree.dir, 'gone')} of stack "gone" does not exist`),
      },
      { path: 'stacks[2].dir', message: expect.stringContaining('holds no *.tf files') },
    ]);
  });
});
