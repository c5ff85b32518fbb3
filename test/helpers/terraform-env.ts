import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The offline AWS provider mirror shipped on the machine image. Tests that need a real provider find it
 * through DRIFTGATE_TEST_PROVIDER_MIRROR (default /opt/tf-plugins) and skip, saying so, where it is absent.
 */
export const PROVIDER_MIRROR = process.env.DRIFTGATE_TEST_PROVIDER_MIRROR ?? '/opt/tf-plugins';
export const HAS_AWS_MIRROR = existsSync(join(PROVIDER_MIRROR, 'registry.terraform.io/hashicorp/aws'));
export const AWS_MIRROR_SKIP_REASON = `no AWS provider mirror at ${PROVIDER_MIRROR}/registry.terraform.io/hashicorp/aws (set DRIFTGATE_TEST_PROVIDER_MIRROR)`;

export interface TestTerraformEnv {
  dir: string;
  /** Environment for terraform child processes: its own CLI config, no checkpoint calls. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * A temp dir with a terraform CLI config of its own: the machine's TF_CLI_CONFIG_FILE points at a missing
 * file, and no provider can be downloaded, so installation goes to the local mirror only.
 */
export async function makeTerraformEnv(prefix = 'driftgate-test-'): Promise<TestTerraformEnv> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const cliConfig = join(dir, 'terraformrc');
  const mirror = HAS_AWS_MIRROR
    ? `provider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(PROVIDER_MIRROR)}\n    include = ["registry.terraform.io/hashicorp/*"]\n  }\n}\n`
    : '';
  await writeFile(cliConfig, `disable_checkpoint = true\n${mirror}`);
  return {
    dir,
    env: { TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
