import { detectTerraform, resolveBinary } from '../../adapters/terraform/binary.js';
import { DriftgateError } from '../../domain/errors.js';

/** `driftgate validate`: why the configured binary cannot run here (missing, not runnable); undefined when it can. */
export async function terraformBinaryProblem(
  binary: string,
  env: Record<string, string>,
  cwd: string,
): Promise<string | undefined> {
  try {
    await detectTerraform(binary, env, cwd);
    return undefined;
  } catch (err) {
    if (!(err instanceof DriftgateError)) throw err;
    return err.message;
  }
}

/** `driftgate init`: the binary to write in the config, OpenTofu only when it is the one installed here. */
export async function installedBinary(env: Record<string, string | undefined>): Promise<'terraform' | 'tofu'> {
  const onlyTofu = !(await resolveBinary('terraform', env)) && Boolean(await resolveBinary('tofu', env));
  return onlyTofu ? 'tofu' : 'terraform';
}
