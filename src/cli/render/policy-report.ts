/**
 * What the policies said about one plan, for `driftgate check`: a few lines above the diff, and the
 * `policy` object of `--json`. Messages come from masked input (domain/policy/input.ts), so they hold
 * no secret; they may hold any other value of the plan, so control characters are shown escaped.
 */
import type { PolicyApproval, PolicyEvaluation, PolicyFinding } from '../../domain/policy/model.js';

export type Paint = (code: string, text: string) => string;

/** Findings shown per stack; the rest are counted (`--json` has them all). */
const MAX_FINDING_LINES = 12;
const MAX_MESSAGE_CHARS = 300;
const IGNORED_ADDRESSES_SHOWN = 3;

const LABELS = {
  deny: { text: 'DENIED', color: '\u001b[31m' },
  require_approval: { text: 'APPROVAL', color: '\u001b[36m' },
  warn: { text: 'WARNING', color: '\u001b[33m' },
  ignore: { text: 'IGNORED', color: '\u001b[2m' },
  minor: { text: 'MINOR', color: '\u001b[32m' },
} as const;
const LABEL_WIDTH = 9;

/** A value from the plan must not move the cursor or recolour the terminal: C0, DEL and C1 are escaped. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function clip(text: string, max: number): string {
  const safe = terminalSafe(text);
  return safe.length > max ? `${safe.slice(0, max - 1)}…` : safe;
}

function requirement(approval: PolicyApproval | undefined): string {
  return approval ? ` (${approval.count} from ${approval.from.join(' or ')})` : '';
}

function findingLine(
  finding: PolicyFinding,
  approvals: readonly PolicyApproval[],
): { effect: keyof typeof LABELS; text: string } {
  const needs =
    finding.effect === 'require_approval' ? requirement(approvals.find((a) => a.rule === finding.rule)) : '';
  return {
    effect: finding.effect,
    text: `${clip(finding.rule, 80)}: ${clip(finding.message, MAX_MESSAGE_CHARS)}${needs}`,
  };
}

/** `N changes ignored by <rule>`, per rule, with the first few addresses. */
function ignoredLines(ignored: PolicyEvaluation['ignored']): string[] {
  const byRule = new Map<string, string[]>();
  for (const { address, rule } of ignored) byRule.set(rule, [...(byRule.get(rule) ?? []), address]);
  return [...byRule].map(([rule, addresses]) => {
    const shown = addresses.slice(0, IGNORED_ADDRESSES_SHOWN).map((a) => clip(a, 120));
    const more = addresses.length > shown.length ? ` and ${addresses.length - shown.length} more` : '';
    return `${addresses.length} change${addresses.length === 1 ? '' : 's'} ignored by ${clip(rule, 80)}: ${shown.join(', ')}${more}`;
  });
}

/** Denials, then approvals the policies add, then warnings, what was ignored, and whether all is minor. */
export function renderPolicyLines(policy: PolicyEvaluation, paint: Paint): string[] {
  const order = ['deny', 'require_approval', 'warn'] as const;
  const findings = order.flatMap((effect) =>
    policy.findings.filter((f) => f.effect === effect).map((f) => findingLine(f, policy.approvals)),
  );
  const lines = findings.slice(0, MAX_FINDING_LINES);
  const label = (effect: keyof typeof LABELS) => paint(LABELS[effect].color, LABELS[effect].text.padEnd(LABEL_WIDTH));
  const out = lines.map((l) => `  ${label(l.effect)} ${l.text}`);
  if (findings.length > lines.length)
    out.push(
      `  ${' '.repeat(LABEL_WIDTH)} … and ${findings.length - lines.length} more policy findings (--json lists them all)`,
    );
  out.push(...ignoredLines(policy.ignored).map((text) => `  ${label('ignore')} ${text}`));
  if (policy.allMinor) out.push(`  ${label('minor')} every change is minor`);
  return out;
}

/** The documented `policy` object of `check --json`; null when no policies are configured. */
export function policyJson(policy: PolicyEvaluation | undefined): object | null {
  if (!policy) return null;
  return {
    denied: policy.denied,
    findings: policy.findings.map((f) => ({
      rule: f.rule,
      effect: f.effect,
      message: f.message,
      ...(f.address === undefined ? {} : { address: f.address }),
    })),
    approvals: policy.approvals.map((a) => ({ rule: a.rule, count: a.count, from: [...a.from] })),
    allMinor: policy.allMinor,
    ignored: policy.ignored.map((i) => ({ address: i.address, rule: i.rule })),
    fired: [...policy.fired],
  };
}
