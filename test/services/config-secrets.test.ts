/**
 * Values from the config (vars, env, backendConfig, anything from `${ENV}`) and from varFiles are secrets
 * from the first command: a plan that fails before terraform ever marks them must not show them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitSources } from '../../src/adapters/git/git-sources.js';
import { createAppContext } from '../../src/app/context.js';
import { parseConfig } from '../../src/config/load.js';
import { checkStack } from '../../src/services/check/check-stack.js';
import { checkStackFromSource } from '../../src/services/check/check-stack-from-source.js';
import { makeTestRepo } from '../adapters/git/git-repo.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { configYaml, gitSource, stackEntry } from '../helpers/config-builder.js';
import { lineSink } from '../helpers/stack-files.js';
import { makeTerraformEnv } from '../helpers/terraform-env.js';

const API_TOKEN = 'tok-7Hq2-config-interpolated-9x';
const VARFILE_SECRET = 'varfile-Secret-0042-zz';
const ENV_SECRET = 'env-Secret-5150-abc';
const BACKEND_SECRET = 'backend-Secret-8080-q';
const OTHER_STACK_SECRET = 'other-Stack-Secret-77';

// terraform quotes a variable's value when its validation fails: the first command can show a secret.
const STACK = `
variable "api_token" {
  type = string
  validation {
    condition     = length(var.api_token) < 5
    error_message = "api_token is too long."
  }
}
variable "db_password" {
  type = string
  validation {
    condition     = length(var.db_password) < 5
    error_message = "db_password is too long."
  }
}
resource "terraform_data" "x" {
  input = "ok"
}
`;

let app: TestApp | undefined;
let varDir: string | undefined;
afterEach(async () => {
  await app?.close();
  if (varDir) await rm(varDir, { recursive: true, force: true });
  app = undefined;
  varDir = undefined;
});

describe('secrets from the config', () => {
  it('are masked in the errors, logs and texts of the first command, and only in their own stack', async () => {
    varDir = await mkdtemp(join(tmpdir(), 'driftgate-varfile-'));
    const varFile = join(varDir, 'secrets.tfvars');
    await writeFile(varFile, `db_password = "${VARFILE_SECRET}"\n`);
    app = await makeTestApp({
      stacks: { api: STACK, other: 'resource "terraform_data" "y" {\n  input = "ok"\n}\n' },
      stackSettings: {
        api: {
          vars: { api_token: '${API_TOKEN}' },
          varFiles: [varFile],
          backendConfig: { password: BACKEND_SECRET },
          env: { SOME_SETTING: ENV_SECRET },
        },
        other: { vars: { unused: OTHER_STACK_SECRET } },
      },
      env: { API_TOKEN },
    });
    const { deps } = app.context;
    const outcome = await checkStack(deps, app.context.stack('api')!, { trigger: 'manual' });
    if (outcome.status !== 'errored') throw new Error(`expected an error, got ${outcome.status}`);
    const shown = [outcome.error, outcome.stderrTail, app.logs.join('')].join('\n');
    expect(shown).toContain('too long');
    for (const secret of [API_TOKEN, VARFILE_SECRET]) expect(shown).not.toContain(secret);

    const api = (text: string) => deps.secrets.redact(text, 'api');
    const text = `env ${ENV_SECRET}, token ${API_TOKEN}, file ${VARFILE_SECRET}, backend ${BACKEND_SECRET}, other ${OTHER_STACK_SECRET}`;
    expect(api(text)).toBe(
      'env (sensitive value), token (sensitive value), file (sensitive value), backend (sensitive value), other other-Stack-Secret-77',
    );
    // A value written in the file belongs to its stack; one taken from the environment is every stack's.
    expect(deps.secrets.redact(text, 'other')).toContain(ENV_SECRET);
    expect(deps.secrets.redact(text, 'other')).not.toContain(API_TOKEN);
  });

  it("of a Git stack's varFiles are masked from its first command, read from the checkout", async () => {
    // Failed before: a Git stack's varFiles were never read for masking, so the failed validation showed them.
    const repo = await makeTestRepo();
    const tf = await makeTerraformEnv('driftgate-git-varfile-');
    const logs = lineSink();
    try {
      await repo.commit(
        { 'api/main.tf': STACK, 'api/secrets.tfvars': `db_password = "${VARFILE_SECRET}"\n` },
        'Add api',
      );
      const env = { PATH: process.env.PATH, HOME: tf.dir, ...tf.env };
      const yaml = configYaml(
        {
          version: 1,
          dataDir: join(tf.dir, 'data'),
          stacks: [stackEntry('api', 'api', { vars: { api_token: 'x' }, varFiles: ['secrets.tfvars'] })],
        },
        gitSource(repo.url),
      );
      const context = await createAppContext(await parseConfig(yaml, { baseDir: tf.dir, env }), {
        env,
        logDestination: logs.stream,
      });
      try {
        const outcome = await checkStackFromSource(
          { ...context.deps, git: createGitSources({ dataDir: join(tf.dir, 'data'), env }) },
          context.stack('api')!,
          { trigger: 'manual' },
        );
        if (outcome.status !== 'errored') throw new Error(`expected an error, got ${outcome.status}`);
        const shown = [outcome.error, outcome.stderrTail, logs.lines.join('')].join('\n');
        expect(shown).toContain('db_password is too long');
        expect(shown).not.toContain(VARFILE_SECRET);
        expect(context.deps.secrets.redact(`file ${VARFILE_SECRET}`, 'api')).toBe('file (sensitive value)');
      } finally {
        await context.close();
      }
    } finally {
      await repo.cleanup();
      await tf.cleanup();
    }
  });
});
