import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll } from 'vitest';
import { makeTerraformEnv, type TestTerraformEnv } from '../../helpers/terraform-env.js';

/** `terraform fmt -check -` over the text on stdin: what terraform would change, or '' when fmt-clean. */
export async function fmtDiff(tf: TestTerraformEnv, text: string): Promise<string> {
  const check = await execa('terraform', ['fmt', '-check', '-no-color', '-'], {
    input: text,
    env: tf.env,
    reject: false,
  });
  if (check.exitCode === 0) return '';
  const formatted = await execa('terraform', ['fmt', '-no-color', '-'], { input: text, env: tf.env, reject: false });
  return `fmt -check exited ${check.exitCode}; fmt gives:\n${formatted.stdout}${formatted.stderr}`;
}

/** `terraform init` + `terraform validate` of `text` as the only file of a fresh stack dir; returns the dir. */
export async function validateStack(tf: TestTerraformEnv, name: string, text: string): Promise<string> {
  const dir = join(tf.dir, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'main.tf'), text);
  const opts = { cwd: dir, env: tf.env };
  await execa('terraform', ['init', '-input=false', '-no-color', '-backend=false'], opts);
  await execa('terraform', ['validate', '-no-color'], opts);
  return dir;
}

/** Apply the stack in `dir` and read back the `input` terraform stored for `terraform_data.<name>`. */
export async function appliedInput(tf: TestTerraformEnv, dir: string, name: string): Promise<unknown> {
  await writeFile(join(dir, 'probe.tf'), `output "probe" {\n  value = terraform_data.${name}.input\n}\n`);
  const opts = { cwd: dir, env: tf.env };
  await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], opts);
  const { stdout } = await execa('terraform', ['output', '-json', 'probe'], opts);
  return JSON.parse(stdout) as unknown;
}

/** A terraform env of the suite's own, made before its tests and removed after them. */
export function useTerraformEnv(prefix: string): () => TestTerraformEnv {
  let tf: TestTerraformEnv | undefined;
  beforeAll(async () => {
    tf = await makeTerraformEnv(prefix);
  });
  afterAll(async () => {
    await tf?.cleanup();
  });
  return () => {
    if (!tf) throw new Error('the terraform env is only there while tests run');
    return tf;
  };
}
