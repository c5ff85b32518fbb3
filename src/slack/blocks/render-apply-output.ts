/** The thread reply after an apply: the outcome and the end of terraform's (already masked) output. */
import { codeBlockTail } from './escape.js';
import { formatDuration, section, type SlackMessage } from './message.js';

export interface ApplyOutputInput {
  ok: boolean;
  output: string;
  durationMs: number;
}

const OUTPUT_BLOCK_CHARS = 2900;

export function renderApplyOutput(input: ApplyOutputInput): SlackMessage {
  const outcome = input.ok
    ? `:white_check_mark: Apply succeeded in ${formatDuration(input.durationMs)}`
    : `:x: Apply failed after ${formatDuration(input.durationMs)}`;
  return {
    text: outcome.replace(/^:[a-z_]+: /, ''),
    blocks: [section(`${outcome}. Output:`), section(codeBlockTail(input.output, OUTPUT_BLOCK_CHARS))],
  };
}
