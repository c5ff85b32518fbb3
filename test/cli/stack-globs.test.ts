import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';

let repo: string;
const env = { PATH: process.env.PATH, HOME: process.env.HOME };

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'driftgate-globs-'));
  for (const name of ['dev/app', 'prod/app', 'prod/database', 'staging/app']) {
    await mkdir(join(repo, 'environments', name), { recursive: true });
    await writeFile(join(repo, 'environments', name, 'main.tf'), 'resource "terraform_data" "x" {}\n');
  }
  await writeFile(
    join(repo, 'driftgate.yml'),
    configYaml({ dataDir: join(repo, 'data'), discover: [{ glob: 'environments/*/*' }] }),
  );
});
afterAll(() => rm(repo, { recursive: true, force: true }));

describe('driftgate check GLOB that matches nothing', () => {
  it.each([
    ['stage/*', 'no stack matches "stage/*"; did you mean "staging/*"? (the stacks are under dev/, prod/, staging/)'],
    ['qa/*', 'no stack matches "qa/*" (the stacks are under dev/, prod/, staging/)'],
    ['*/cache', 'no stack matches "*/cache" (the stacks are under dev/, prod/, staging/)'],
  ])('%s says so and lists the prefixes that exist', async (glob, message) => {
    const result = await runCli(['check', glob], { cwd: repo, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`driftgate check: ${message}\n`);
  });

  it('still names the closest stacks for a misspelt name', async () => {
    const result = await runCli(['unlock', 'prod/databse'], { cwd: repo, env });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe(
      'driftgate unlock: no stack named "prod/databse"; did you mean "prod/database"?',
    );
  });
});
