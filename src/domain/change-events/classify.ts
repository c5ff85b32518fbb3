import picomatch from 'picomatch';
import type { ChangeEvent } from './schema.js';

/** A principal named in config by ARN glob: `arn:aws:iam::*:role/karpenter-*`. */
export interface PrincipalRule {
  /** What the rule is called in counters and logs, e.g. `autoscaler`. */
  name: string;
  arn: string;
}

export interface ClassifyOptions {
  /** The identities driftgate applies with: their calls are driftgate's own, not drift. */
  ownIdentities: string[];
  /** Principals whose changes are expected (autoscalers, a cost tool). */
  automation: PrincipalRule[];
}

export type Classification =
  | { kind: 'relevant' }
  | { kind: 'ignored'; reason: 'read_only' }
  | { kind: 'ignored'; reason: 'failed_call'; errorCode: string }
  | { kind: 'ignored'; reason: 'own_apply'; rule: string }
  | { kind: 'ignored'; reason: 'automation'; rule: string };

/** Calls that change nothing, when a record has no `readOnly` flag (older records, some services). */
const READ_ONLY_PREFIXES = ['Get', 'List', 'Describe', 'Head', 'Lookup'];

export function isReadOnly(event: ChangeEvent): boolean {
  const { readOnly, eventName } = event.record;
  if (readOnly !== undefined) return readOnly;
  return READ_ONLY_PREFIXES.some((prefix) => eventName.startsWith(prefix));
}

/**
 * The ARNs an event's principal is known by: its own, and for an assumed-role session the role it was
 * issued from, so that config names a role once and every session of it matches.
 */
export function principalArns(event: ChangeEvent): string[] {
  const identity = event.record.userIdentity;
  const arns: string[] = [];
  if (identity.arn) arns.push(identity.arn);
  const issuer = identity.sessionContext?.sessionIssuer?.arn;
  if (issuer) arns.push(issuer);
  return arns;
}

/** Compiles the globs once: the classifier runs on every event of a burst. */
export function createClassifier(options: ClassifyOptions): (event: ChangeEvent) => Classification {
  // `*` must not cross `/` (a role path), but ARNs hold no dotfiles: `dot` keeps `.` ordinary.
  const compile = (glob: string) => picomatch(glob, { dot: true });
  const own = options.ownIdentities.map((arn) => ({ rule: arn, isMatch: compile(arn) }));
  const automation = options.automation.map((r) => ({ rule: r.name, isMatch: compile(r.arn) }));
  return (event) => {
    if (isReadOnly(event)) return { kind: 'ignored', reason: 'read_only' };
    // A call AWS refused (AccessDenied, a validation error) changed nothing; CloudTrail logs it all the same.
    const { errorCode } = event.record;
    if (errorCode) return { kind: 'ignored', reason: 'failed_call', errorCode };
    const arns = principalArns(event);
    const ownMatch = own.find((o) => arns.some((arn) => o.isMatch(arn)));
    if (ownMatch) return { kind: 'ignored', reason: 'own_apply', rule: ownMatch.rule };
    const automationMatch = automation.find((a) => arns.some((arn) => a.isMatch(arn)));
    if (automationMatch) return { kind: 'ignored', reason: 'automation', rule: automationMatch.rule };
    return { kind: 'relevant' };
  };
}

export function classify(event: ChangeEvent, options: ClassifyOptions): Classification {
  return createClassifier(options)(event);
}
