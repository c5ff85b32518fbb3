import { randomBytes } from 'node:crypto';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { currentIdentity, RUN_AS_CAPABILITIES, runAsRefusal } from '../../adapters/terraform/run-as.js';
import { holdsTerraformFiles } from '../../config/stack-dirs.js';
import { unsetVariables } from '../../config/unset-variables.js';
import { variableEnvName } from '../../domain/variable-env.js';
import type { DriftgateConfig } from '../../config/schema.js';
import { DriftgateError, TerraformError } from '../../domain/errors.js';
import type { Stack } from '../../domain/stack.js';
import type { TerraformRunner } from '../../ports/terraform.js';
import { type CheckResult, fail, ok, reason, skip } from './check-result.js';

/** The binary the config names, found and asked for its version. */
export async function checkTerraformBinary(
  terraform: Pick<TerraformRunner, 'version'>,
  binary: string,
): Promise<CheckResult> {
  try {
    const v = await terraform.version();
    return ok('terraform', `${v.flavor === 'tofu' ? 'OpenTofu' : 'Terraform'} ${v.version} at ${v.path}`);
  } catch (err) {
    const missing = err instanceof DriftgateError && err.code === 'TERRAFORM_BINARY_MISSING';
    return fail(
      'terraform',
      missing ? `"${binary}" was not found, or is not an executable terraform or tofu` : reason(err),
      `install terraform or tofu on this PATH, or set terraform.binary to its path (now "${binary}")`,
    );
  }
}

/** A directory this process must write to: created if missing, then a probe file written and removed. */
export async function checkWritableDir(check: string, dir: string, configKey: string): Promise<CheckResult> {
  const probe = join(dir, `.driftgate-doctor-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, 'probe\n', { mode: 0o600 });
    await rm(probe);
    return ok(check, `${dir} is writable`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return fail(
      check,
      `${dir} is not writable (${code ?? reason(err)})`,
      `make it writable by the user driftgate runs as, or set ${configKey} to a dir that is`,
    );
  }
}

/** Whether this process can run terraform as `runners.runAs`; undefined without runAs. */
export async function checkRunAs(config: Pick<DriftgateConfig, 'runAs'>): Promise<CheckResult | undefined> {
  if (!config.runAs) return undefined;
  const { uid, gid } = config.runAs;
  const refusal = runAsRefusal(config.runAs, await currentIdentity());
  return refusal
    ? fail(
        'run as',
        refusal,
        `start driftgate as root, or with ${RUN_AS_CAPABILITIES.join(' ')}, or remove runners.runAs`,
      )
    : ok('run as', `terraform runs as uid ${uid}, gid ${gid}, in ${config.runAs.dir}`);
}

/**
 * A stack's dir is there, holds a root module, `terraform init` and `validate` pass in it, and every
 * variable without a default gets a value (a plan would fail asking for `-var`, which driftgate never passes).
 */
export async function checkStack(
  terraform: Pick<TerraformRunner, 'validate'>,
  stack: Stack,
  env: Record<string, string | undefined>,
): Promise<CheckResult> {
  const check = `stack ${stack.name}`;
  if (stack.git) {
    return skip(check, `from Git (${stack.git.url} ${stack.git.branch}, ${stack.git.path}): checked out at each run`);
  }
  const info = await stat(stack.dir).catch((err: NodeJS.ErrnoException) => err);
  if (info instanceof Error) {
    return fail(
      check,
      info.code === 'ENOENT' ? `${stack.dir} does not exist` : `${stack.dir} cannot be read (${info.code})`,
      'fix the stack\'s "dir" (or its discover glob), or create the directory',
    );
  }
  if (!info.isDirectory())
    return fail(check, `${stack.dir} is not a directory`, 'point the stack\'s "dir" at a directory');
  if (!(await holdsTerraformFiles(stack.dir))) {
    return fail(check, `${stack.dir} holds no *.tf files`, 'point the stack at the dir of its root module');
  }
  try {
    await terraform.validate(stack);
  } catch (err) {
    const command = err instanceof TerraformError ? err.command : 'init';
    const detail = err instanceof TerraformError ? firstDiagnostic(err.stderrTail) : reason(err);
    return fail(
      check,
      `terraform ${command} failed in ${stack.dir}${detail ? `: ${detail}` : ''}`,
      `run \`terraform ${command === 'validate' ? 'validate' : 'init'}\` in that dir to see terraform's whole message`,
    );
  }
  const unset = await unsetVariables(stack, env);
  if (unset.length) {
    const names = unset.map((v) => `"${v.name}" (${v.where})`).join(', ');
    const example = unset[0]!.name;
    const envName = variableEnvName(example);
    return fail(
      check,
      `${stack.dir}: no value for ${unset.length === 1 ? 'the variable' : 'the variables'} ${names}: no default, and neither vars, varFiles, a *.auto.tfvars file nor TF_VAR_${example} sets ${unset.length === 1 ? 'it' : 'them'}; a plan would fail`,
      `add ${unset.length === 1 ? 'it' : 'them'} under ${stack.configKey ?? 'the stack'}.vars in driftgate.yml, e.g. vars: { ${example}: "\${${envName}}" } with ${envName} in the environment (terraform's -var does not apply to driftgate)`,
    );
  }
  return ok(check, `${stack.dir}: init and validate ok`);
}

/** terraform's `Error: …` line, the one that says why. */
function firstDiagnostic(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.replace(/^[│╷╵\s]+/, '').trim());
  return lines.find((l) => l.startsWith('Error:')) ?? lines.find(Boolean) ?? '';
}

/** Stacks checked a few at a time (inits are serialised by the runner anyway), results in config order. */
export async function checkStacks(
  terraform: Pick<TerraformRunner, 'validate'>,
  config: Pick<DriftgateConfig, 'stacks' | 'defaults'>,
  env: Record<string, string | undefined>,
): Promise<CheckResult[]> {
  const results: CheckResult[] = new Array(config.stacks.length);
  let next = 0;
  const worker = async () => {
    while (next < config.stacks.length) {
      const i = next++;
      results[i] = await checkStack(terraform, config.stacks[i]!, env);
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.defaults.concurrency, 4) }, worker));
  return results;
}
