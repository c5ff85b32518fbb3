import { execa } from 'execa';

interface StateResource {
  mode: string;
  type: string;
  name: string;
  instances: { index_key?: unknown; attributes: Record<string, unknown> }[];
}

interface StateFile {
  serial: number;
  resources: StateResource[];
}

export interface TerraformCli {
  binary: string;
  env: Record<string, string | undefined>;
}

/**
 * Changes a resource in a stack's state the way a change made by hand in a cloud console would look to
 * terraform: the recorded attributes no longer match the code. (terraform_data has no remote API, so the
 * state is where its "real" values live.)
 */
export async function editResourceInput(
  tf: TerraformCli,
  dir: string,
  address: { type: string; name: string },
  edit: (input: Record<string, unknown>) => void,
): Promise<void> {
  const pulled = await execa(tf.binary, ['state', 'pull'], { cwd: dir, env: tf.env, extendEnv: false });
  const state = JSON.parse(pulled.stdout) as StateFile;
  const resource = state.resources.find(
    (r) => r.mode === 'managed' && r.type === address.type && r.name === address.name,
  );
  const attributes = resource?.instances[0]?.attributes;
  const attribute = (name: string) => (attributes?.[name] as { value?: Record<string, unknown> } | undefined)?.value;
  const input = attribute('input');
  if (!attributes || !input) throw new Error(`${address.type}.${address.name} has no input in the state of ${dir}`);
  edit(input);
  // terraform_data's output mirrors its input once applied; a real out-of-band change moves both.
  const output = attribute('output');
  if (output) edit(output);
  state.serial += 1;
  await execa(tf.binary, ['state', 'push', '-'], {
    cwd: dir,
    env: tf.env,
    extendEnv: false,
    input: JSON.stringify(state),
  });
}

/** Forgets a resource, as if someone deleted it outside terraform: the next plan creates it again. */
export async function forgetResource(tf: TerraformCli, dir: string, address: string): Promise<void> {
  await execa(tf.binary, ['state', 'rm', address], { cwd: dir, env: tf.env, extendEnv: false });
}
