/**
 * A CompiledPolicy over one PolicyInput. Resource rules run once per resource change (`ignore` rules
 * over the drift too), plan rules once. A rule that throws, or gives no bool, counts as not matched
 * for that resource and is reported as one warning per rule: a policy mistake must not hide the
 * other rules' verdicts, nor flood a message with one line per resource.
 */
import { errorSummary } from './cel.js';
import type { CompiledPolicy, CompiledRule } from './compile.js';
import type { PolicyEvaluation, PolicyFinding, PolicyInput, PolicyResourceChange } from './model.js';
import { renderTemplate } from './template.js';

interface Failure {
  count: number;
  address?: string;
  what: string;
}

/** What no rule says: nothing fired, nothing is minor. Also what a stack without policies gets. */
export function emptyEvaluation(): PolicyEvaluation {
  return { findings: [], denied: false, approvals: [], allMinor: false, ignored: [], fired: [] };
}

/** What one evaluation accumulates, rule after rule. */
class Verdict {
  readonly evaluation = emptyEvaluation();
  private readonly minor: Uint8Array;
  private minorCount = 0;
  private readonly ignoredAddresses = new Set<string>();

  constructor(private readonly changeCount: number) {
    this.minor = new Uint8Array(changeCount);
  }

  markMinor(changeIndex: number): void {
    if (this.minor[changeIndex]) return;
    this.minor[changeIndex] = 1;
    this.minorCount++;
  }

  /** The first ignore rule (in rule order) to cover an address is the one named. */
  markIgnored(address: string, rule: string): void {
    if (this.ignoredAddresses.has(address)) return;
    this.ignoredAddresses.add(address);
    this.evaluation.ignored.push({ address, rule });
  }

  finish(): PolicyEvaluation {
    this.evaluation.allMinor = this.changeCount > 0 && this.minorCount === this.changeCount;
    return this.evaluation;
  }
}

function failureFinding(rule: string, failure: Failure): PolicyFinding {
  const where = failure.address === undefined ? 'the plan' : failure.address;
  const more = failure.count > 1 ? ` (and ${failure.count - 1} more)` : '';
  return {
    rule,
    effect: 'warn',
    message: `rule ${rule} failed on ${where}${more}: ${failure.what}`,
    ...(failure.address === undefined ? {} : { address: failure.address }),
    error: true,
  };
}

function runRule(compiled: CompiledRule, input: PolicyInput, verdict: Verdict): void {
  const { rule } = compiled;
  const { evaluation } = verdict;
  const context: Record<string, unknown> = {
    terraform: input.terraform,
    stack: input.stack,
    run: input.run,
    drift: input.drift,
  };
  let failure: Failure | undefined;
  let fired = false;
  const fail = (address: string | undefined, what: string) => {
    if (failure) failure.count++;
    else failure = { count: 1, ...(address === undefined ? {} : { address }), what };
  };

  const matches = (address: string | undefined): boolean => {
    try {
      const result = compiled.when(context);
      if (typeof result === 'boolean') return result;
      fail(
        address,
        `\`when\` gave ${typeof result === 'bigint' ? 'a number' : typeof result}, not a bool; counted as not matched`,
      );
    } catch (err) {
      fail(address, `\`when\`: ${errorSummary(err)}; counted as not matched`);
    }
    return false;
  };

  const report = (address: string | undefined) => {
    const rendered = renderTemplate(compiled.message, context);
    if (rendered.error !== undefined) fail(address, `message: ${rendered.error}; shown with (?)`);
    evaluation.findings.push({
      rule: rule.name,
      effect: rule.effect,
      message: rendered.text,
      ...(address === undefined ? {} : { address }),
    });
  };

  const fire = (resource: PolicyResourceChange | undefined, changeIndex: number | undefined) => {
    fired = true;
    switch (rule.effect) {
      case 'deny':
        evaluation.denied = true;
        return report(resource?.address);
      case 'require_approval':
      case 'warn':
        return report(resource?.address);
      case 'minor':
        if (changeIndex !== undefined) verdict.markMinor(changeIndex);
        return;
      case 'ignore':
        if (resource) verdict.markIgnored(resource.address, rule.name);
        return;
    }
  };

  if (rule.scope === 'plan') {
    if (matches(undefined)) fire(undefined, undefined);
  } else {
    const changes = input.terraform.resource_changes;
    for (let i = 0; i < changes.length; i++) {
      context.resource = changes[i];
      if (matches(changes[i]!.address)) fire(changes[i], i);
    }
    if (rule.effect === 'ignore') {
      for (const drifted of input.terraform.resource_drift) {
        context.resource = drifted;
        if (matches(drifted.address)) fire(drifted, undefined);
      }
    }
  }
  if (fired) {
    evaluation.fired.push(rule.name);
    if (rule.effect === 'require_approval')
      evaluation.approvals.push({ rule: rule.name, count: rule.count ?? 1, from: [...(rule.from ?? [])] });
  }
  if (failure) evaluation.findings.push(failureFinding(rule.name, failure));
}

export function evaluatePolicies(policy: CompiledPolicy, input: PolicyInput): PolicyEvaluation {
  const verdict = new Verdict(input.terraform.resource_changes.length);
  for (const compiled of policy.rules) runRule(compiled, input, verdict);
  return verdict.finish();
}
