import type { CheckResult } from '../../app/doctor/check-result.js';

const MARK = { ok: 'ok  ', skip: 'skip', fail: 'FAIL' } as const;

/** `ok   terraform: Terraform 1.11.4 at /usr/bin/terraform`; a failure says what to fix on the same line. */
export function doctorLine(result: CheckResult): string {
  const fix = result.status === 'fail' ? `; fix: ${result.fix}` : '';
  return `${MARK[result.status]} ${result.check}: ${result.message}${fix}`;
}

/** The last line: how many checks passed, failed and were skipped. */
export function doctorSummary(results: readonly CheckResult[]): string {
  const n = (status: CheckResult['status']) => results.filter((r) => r.status === status).length;
  const failed = n('fail');
  return `${failed ? `${failed} failed, ` : 'all good: '}${n('ok')} ok, ${n('skip')} skipped`;
}
