import type { Stack } from './stack.js';

/** What can be wrong with a stack's directory, found the same way by `validate` and by a check. */
export type StackDirProblem =
  | { kind: 'missing' }
  | { kind: 'file' }
  | { kind: 'not_directory' }
  /** `code`: EACCES for permissions, else the system's code. */
  | { kind: 'unreadable'; code: string }
  | { kind: 'read_only'; code: string }
  | { kind: 'no_module_files' };

const REASONS: Record<string, string> = {
  EACCES: 'permission denied to the user driftgate runs as',
  EPERM: 'not permitted for the user driftgate runs as',
  EROFS: 'the file system is read-only',
};

/** One sentence naming the stack, the path and what is wrong; `validate` and `check` print exactly this. */
export function stackDirMessage(stack: string, dir: string, problem: StackDirProblem): string {
  const where = `directory ${dir} of stack "${stack}"`;
  switch (problem.kind) {
    case 'missing':
      return `${where} does not exist`;
    case 'file':
      return `${dir} of stack "${stack}" is a file, not a directory`;
    case 'not_directory':
      return `${dir} of stack "${stack}" is not a directory`;
    case 'unreadable':
      return `${where} cannot be read (${REASONS[problem.code] ?? problem.code}): terraform runs in it and reads its *.tf files`;
    case 'read_only':
      return `${where} is not writable (${REASONS[problem.code] ?? problem.code}): terraform init writes .terraform and .terraform.lock.hcl there`;
    case 'no_module_files':
      return `${where} holds no *.tf files`;
  }
}

/** The config key a stack's dir comes from: `stacks[2].dir`, or `discover[0].glob` for a discovered stack. */
export function stackDirKey(stack: Pick<Stack, 'configKey'>): string {
  if (!stack.configKey) return 'dir';
  return stack.configKey.startsWith('discover[') ? `${stack.configKey}.glob` : `${stack.configKey}.dir`;
}
