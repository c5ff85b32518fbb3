import { variableEnvName } from '../../domain/variable-env.js';
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

/**
 * terraform reads the state (and takes its lock) before it changes anything: an apply that failed there
 * changed nothing. These are the summaries it prints for it, in terraform and tofu alike.
 */
const BEFORE_ANY_CHANGE =
  /^(?:│ )?Error: (?:error loading state|Failed to load state|Error acquiring the state lock|Error loading state)/im;
/**
 * What cloud APIs answer to credentials that expired or are not (or no longer) valid, as the AWS, Azure
 * and Google SDKs word them inside terraform's error. A missing permission (AccessDenied) is not one.
 */
const CREDENTIALS_REJECTED =
  /\b(?:InvalidAccessKeyId|ExpiredToken(?:Exception)?|InvalidClientTokenId|SignatureDoesNotMatch|TokenRefreshRequired|RequestExpired|InvalidToken|AuthenticationExpired|ExpiredAuthenticationToken|invalid_grant|failed to refresh cached credentials|no valid credential sources)\b/i;

/** The command stopped at reading or locking the state because the backend refused its credentials. */
export function credentialsRejectedBeforeChanges(stderr: string): boolean {
  return BEFORE_ANY_CHANGE.test(stderr) && CREDENTIALS_REJECTED.test(stderr);
}

const UNSET_VARIABLE = /root module input variable "([^"]+)" is not set/g;

/**
 * What to do instead of terraform's own advice, where that advice does not apply to driftgate: for a
 * variable without a value terraform says to pass `-var`, but driftgate passes the config's `vars:`.
 */
export function driftgateAdvice(stderr: string): string | undefined {
  if (!/No value for required variable/.test(stderr)) return undefined;
  const names = [...new Set([...stderr.matchAll(UNSET_VARIABLE)].map((m) => m[1]!))];
  const example = names[0] ?? 'name';
  const envName = variableEnvName(example);
  return (
    `driftgate passes variables from driftgate.yml, not -var: give ${names.length ? names.map((n) => `"${n}"`).join(', ') : 'the variable'} a value ` +
    `under the stack's (or its discover rule's) vars: in driftgate.yml, e.g. vars: { ${example}: "\${${envName}}" } with ${envName} in the environment, or in a file listed in varFiles`
  );
}
