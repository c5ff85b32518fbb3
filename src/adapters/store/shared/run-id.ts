import { randomBytes } from 'node:crypto';

/**
 * `r_` + the creation time in base36 (fixed width, so ids sort by time as plain strings) + 10 random
 * base36 characters, e.g. `r_mbx3k2q1a_4f9z0k2jqp`.
 */
export function newRunId(now: Date): string {
  const time = now.getTime().toString(36).padStart(9, '0');
  const random = [...randomBytes(10)].map((b) => (b % 36).toString(36)).join('');
  return `r_${time}_${random}`;
}
