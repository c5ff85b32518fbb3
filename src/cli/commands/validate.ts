import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { terraformBinaryProblem } from '../../app/cli/terraform-binary.js';
import { validateConfigFile } from '../../config/load.js';
import { formatValidation } from '../../config/format.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';

/** `driftgate validate`: every config error with its path, and whether the terraform binary is there. */
export async function validateCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string', short: 'c' } } });
  const result = await validateConfigFile(configOptions(values.config, io));
  // Looked for also when the file has errors elsewhere: one run shows everything.
  const binary = result.config?.terraform.binary ?? result.terraformBinary;
  if (binary) {
    const env = Object.fromEntries(Object.entries(io.env).filter((e): e is [string, string] => e[1] !== undefined));
    const problem = await terraformBinaryProblem(
      binary,
      env,
      result.config?.baseDir ?? (result.file ? dirname(result.file) : io.cwd),
    );
    if (problem) {
      result.issues.push({ path: 'terraform.binary', message: problem });
      delete result.config;
    }
  }
  (result.config ? io.stdout : io.stderr).write(`${formatValidation(result)}\n`);
  return result.config ? 0 : 1;
}
