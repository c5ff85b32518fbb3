import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The change events' AWS setup is copied into a shell by people who have never seen it: each snippet must
 * run as written. It runs here under `set -euo pipefail` with an `aws` on PATH that answers each `--query`
 * with an ARN- or URL-shaped value and records every call, so a variable used before it is set, a value
 * never captured or a quoting mistake fails, and the calls that wire things together are checked.
 */
const DOC = resolve(import.meta.dirname, '../../docs/change-events.md');
let dir: string;

const snippets = async (): Promise<string[]> => {
  const text = await readFile(DOC, 'utf8');
  return [...text.matchAll(/\*\*AWS setup, (?:push|pull)\*\*[\s\S]*?```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'driftgate-aws-setup-'));
  await writeFile(
    join(dir, 'aws'),
    `#!/usr/bin/env bash
printf '%s\\n' "$*" >> "$AWS_CALLS"
case "$*" in
  *"--query Account"*) echo 111122223333 ;;
  *"--query QueueUrl"*) echo "https://sqs.eu-west-1.amazonaws.com/111122223333/q-$RANDOM" ;;
  *"--query"*) echo "arn:aws:fake:eu-west-1:111122223333:thing/$RANDOM" ;;
esac
`,
  );
  await chmod(join(dir, 'aws'), 0o755);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('docs/change-events.md: AWS setup', () => {
  it('has a push and a pull snippet', async () => {
    expect(await snippets()).toHaveLength(2);
  });

  it.each([0, 1])('snippet %i runs as written, every value it uses captured first', async (i) => {
    const script = (await snippets())[i]!;
    const calls = join(dir, `calls-${i}`);
    const run = await execa('bash', ['-c', `set -euo pipefail\n${script}`], {
      cwd: dir,
      env: { PATH: `${dir}:${process.env.PATH}`, AWS_CALLS: calls },
      reject: false,
    });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const log = await readFile(calls, 'utf8');
    const target = log.split('\n').find((l) => l.startsWith('events put-targets'));
    // The target names what the earlier calls returned, not an empty or placeholder value.
    expect(target).toMatch(/Arn=arn:aws:/);
    if (i === 0) expect(target).toMatch(/RoleArn=arn:aws:fake/);
  });
});
