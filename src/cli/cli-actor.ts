import { userInfo } from 'node:os';
import { environmentValue } from '../config/environment.js';
import type { CliIo } from './io.js';

/** Who a command run at a terminal is audited as: `cli:<USER>`, else the OS user's name. */
export function cliActor(io: Pick<CliIo, 'env'>): string {
  return `cli:${environmentValue(io.env, 'USER') ?? userInfo().username}`;
}
