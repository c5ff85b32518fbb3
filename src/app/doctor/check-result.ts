/** One line of `driftgate doctor`: what was checked, and when it failed, what to do about it. */
export type CheckResult =
  | { check: string; status: 'ok'; message: string }
  | { check: string; status: 'skip'; message: string }
  | { check: string; status: 'fail'; message: string; fix: string };

export const ok = (check: string, message: string): CheckResult => ({ check, status: 'ok', message });
export const skip = (check: string, message: string): CheckResult => ({ check, status: 'skip', message });
export const fail = (check: string, message: string, fix: string): CheckResult => ({
  check,
  status: 'fail',
  message,
  fix,
});

/** The message of whatever was thrown, first line only: a check is one line. */
export function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n', 1)[0]!.replace(/:$/, '');
}
