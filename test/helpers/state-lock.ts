import { execa, type ResultPromise } from 'execa';
import { waitFor } from './process-wait.js';

/**
 * A person's terraform holding the stack's state lock: `terraform apply` in `dir` waiting at its "yes"
 * prompt, returned (in an object: awaiting the process itself would wait for its end) once it waits there.
 * End it with `terraform.stdin?.end('no\n')` and await it.
 */
export async function holdStateLock(
  dir: string,
  env: Record<string, string | undefined>,
): Promise<{ terraform: ResultPromise }> {
  const holder = execa('terraform', ['apply', '-input=true', '-no-color'], {
    cwd: dir,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
  });
  let prompt = '';
  holder.stdout?.on('data', (chunk: Buffer) => {
    prompt += chunk.toString('utf8');
  });
  await waitFor('the state lock to be held', () => (prompt.includes('Enter a value') ? true : undefined));
  return { terraform: holder };
}
