import type { Stack } from '../../../domain/stack.js';
import type { SlackDeps } from '../../slack-deps.js';
import type { Tell } from '../tell.js';
import type { DriftCommand } from './parse.js';

/** One `/drift` subcommand's work, after the ack; `userId` is who typed it. */
export type CommandHandler<K extends DriftCommand['kind'], D = SlackDeps> = (
  deps: D,
  command: Extract<DriftCommand, { kind: K }>,
  userId: string,
  tell: Tell,
) => Promise<void>;

/**
 * A subcommand about one configured stack: `work` gets the stack itself. The parser refused names that are
 * not configured; a stack gone from the config since then gets no answer.
 */
export function forStack<C extends Extract<DriftCommand, { stack: string }>, D extends Pick<SlackDeps, 'stack'>>(
  work: (deps: D, stack: Stack, command: C, userId: string, tell: Tell) => Promise<void>,
): (deps: D, command: C, userId: string, tell: Tell) => Promise<void> {
  return async (deps, command, userId, tell) => {
    const stack = deps.stack(command.stack);
    if (stack) await work(deps, stack, command, userId, tell);
  };
}
