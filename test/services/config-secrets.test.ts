/**
 * Values from the config (vars, env, backendConfig, anything from `${ENV}`) and from varFiles are secrets
 * from the first command: a plan that fails before terraform ever marks them must not show them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkStack } from '../../src/services/check-stack.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';

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
});
