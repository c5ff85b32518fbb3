/**
 * Rules -> a CompiledPolicy: every `when` and every `{{ }}` of every message parsed and type-checked
 * once, with every problem of every rule reported together (as the config's own validation does).
 */
import { compileExpression, describeAt, type Evaluator } from './cel.js';
import type { PolicyCompileIssue, PolicyRule } from './model.js';
import { compileTemplate, type MessageTemplate } from './template.js';

export interface CompiledRule {
  rule: PolicyRule;
  /** Position in the list compiled, i.e. in `fired` order. */
  index: number;
  when: Evaluator;
  /** The rule's message; without one, its description or else its name, as plain text. */
  message: MessageTemplate;
}

export interface CompiledPolicy {
  rules: readonly CompiledRule[];
}

export type CompilePoliciesResult = { ok: true; policy: CompiledPolicy } | { ok: false; issues: PolicyCompileIssue[] };

/** Checks of a rule's shape that a schema cannot express alone (the config schema checks the types). */
function shapeIssues(rule: PolicyRule): { field: PolicyCompileIssue['field']; message: string }[] {
  const out: { field: PolicyCompileIssue['field']; message: string }[] = [];
  if (rule.effect === 'require_approval') {
    if (rule.count === undefined || !Number.isInteger(rule.count) || rule.count < 1) {
      out.push({ field: 'count', message: 'require_approval needs `count`, a whole number of approvals (at least 1)' });
    }
    if (!rule.from?.length)
      out.push({ field: 'from', message: 'require_approval needs `from`, the approver groups to approve' });
  } else {
    if (rule.count !== undefined)
      out.push({ field: 'count', message: `\`count\` is for require_approval, not ${rule.effect}` });
    if (rule.from !== undefined)
      out.push({ field: 'from', message: `\`from\` is for require_approval, not ${rule.effect}` });
  }
  // A plan-wide minor or ignore would cover every resource at once, unseen: those effects stay per resource.
  if (rule.scope === 'plan' && (rule.effect === 'minor' || rule.effect === 'ignore')) {
    out.push({ field: 'scope', message: `${rule.effect} applies to resources one by one: use scope resource` });
  }
  return out;
}

export function compilePolicies(rules: readonly PolicyRule[]): CompilePoliciesResult {
  const issues: PolicyCompileIssue[] = [];
  const compiled: CompiledRule[] = [];
  const names = new Set<string>();
  rules.forEach((rule, index) => {
    const issue = (field: PolicyCompileIssue['field'], message: string) =>
      issues.push({ rule: rule.name, index, field, message });
    if (names.has(rule.name)) issue('name', 'duplicate rule name: rule names must be unique');
    names.add(rule.name);
    for (const { field, message } of shapeIssues(rule)) issue(field, message);
    const when = compileExpression(rule.scope, rule.when);
    if (!when.ok) issue('when', when.message);
    // `dyn` (e.g. `resource.after.enabled`) may still give no bool: evaluation reports that per rule.
    else if (when.type !== 'bool' && when.type !== 'dyn')
      issue('when', describeAt(rule.when, 0, `must give a bool, gives ${when.type}`));
    // Without a message, the description (or name) is shown as written: prose is no template.
    const literal = rule.description ?? rule.name;
    const message =
      rule.message === undefined
        ? { ok: true as const, template: { parts: [literal] } }
        : compileTemplate(rule.scope, rule.message);
    if (!message.ok) for (const text of message.messages) issue('message', text);
    if (when.ok && message.ok) compiled.push({ rule, index, when: when.evaluate, message: message.template });
  });
  return issues.length ? { ok: false, issues } : { ok: true, policy: { rules: compiled } };
}
