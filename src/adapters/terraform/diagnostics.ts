import { lastLines } from './tail-buffer.js';

/** A line that opens one of terraform's error diagnostics, boxed (`│ Error: …`) or not (-no-color). */
const ERROR_START = /^(?:│ )?Error: /;
/** The line above a boxed diagnostic. */
const BOX_TOP = '╷';

function trimBlankLines(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && !lines[start]!.trim()) start++;
  while (end > start && !lines[end - 1]!.trim()) end--;
  return lines.slice(start, end);
}

/**
 * What a person reads of a failed command's stderr, at most `lines` lines: terraform's first `Error:` block
 * and what follows it, then whatever came before it (warnings such as an unreadable CLI configuration,
 * which terraform prints first). Without an error diagnostic (a crash, a signal) the end of stderr.
 */
export function errorsFirst(stderr: string, lines: number): string {
  const all = stderr.split('\n');
  let first = all.findIndex((line) => ERROR_START.test(line));
  if (first < 0) return lastLines(stderr, lines);
  if (all[first - 1] === BOX_TOP) first -= 1;
  const errors = trimBlankLines(all.slice(first));
  const before = trimBlankLines(all.slice(0, first));
  return [...errors, ...(before.length ? ['', ...before] : [])].slice(0, lines).join('\n');
}
