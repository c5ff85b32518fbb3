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
