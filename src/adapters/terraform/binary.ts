import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import { environmentValue } from '../../config/environment.js';
import { TerraformBinaryMissingError } from '../../domain/errors.js';
import type { TerraformVersion } from '../../ports/terraform.js';
import { runProcess } from './process.js';

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `terraform`, `tofu` or a path -> the absolute path of an executable file, searched on the injected PATH. */
export async function resolveBinary(
  binary: string,
  env: Record<string, string | undefined>,
): Promise<string | undefined> {
  if (binary.includes('/')) {
    const path = isAbsolute(binary) ? binary : resolve(binary);
    return (await isExecutableFile(path)) ? path : undefined;
  }
  for (const dir of (environmentValue(env, 'PATH') ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, binary);
    if (await isExecutableFile(candidate)) return resolve(candidate);
  }
  return undefined;
}

/**
 * Flavor from `version`'s human first line (`Terraform v1.11.4` / `OpenTofu v1.8.0`): OpenTofu's
 * `version -json` also says `terraform_version`, so the JSON alone cannot tell them apart. The file
 * name is the last resort.
 */
export function parseFlavor(humanVersion: string, path: string): TerraformVersion['flavor'] {
  const first = humanVersion.trimStart().split('\n', 1)[0] ?? '';
  if (/^OpenTofu\b/i.test(first)) return 'tofu';
  if (/^Terraform\b/i.test(first)) return 'terraform';
  return /tofu/i.test(basename(path)) ? 'tofu' : 'terraform';
}

/** The version from `version -json`, else from the human first line; undefined when neither parses. */
export function parseVersion(jsonText: string, humanVersion: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(jsonText);
    if (
      parsed &&
      typeof parsed === 'object' &&
      'terraform_version' in parsed &&
      typeof parsed.terraform_version === 'string'
    ) {
      return parsed.terraform_version;
    }
  } catch {
    // Older binaries print no JSON; fall through to the human line.
  }
  return /^(?:Terraform|OpenTofu) v(\S+)/im.exec(humanVersion)?.[1];
}

/** Finds the binary and asks it what it is. Throws TerraformBinaryMissingError when absent or not runnable. */
export async function detectTerraform(
  binary: string,
  env: Record<string, string>,
  cwd: string,
): Promise<TerraformVersion> {
  const path = await resolveBinary(binary, env);
  if (!path) throw new TerraformBinaryMissingError(binary);
  const run = (args: string[]) =>
    runProcess({
      file: path,
      args,
      cwd,
      env,
      timeoutMs: 60_000,
      killGraceMs: 5_000,
      stdoutLimit: 64 * 1024,
      stderrLimit: 64 * 1024,
    });
  const [json, human] = await Promise.all([run(['version', '-json']), run(['version'])]);
  const version = json.spawnError || human.spawnError ? undefined : parseVersion(json.stdout, human.stdout);
  if (!version) throw new TerraformBinaryMissingError(binary);
  return { flavor: parseFlavor(human.stdout, path), version, path };
}
