import type { PolicyChange } from '../change-events/attribution.js';
import type { PolicyCause } from '../drift-causes/describe.js';
/**
 * Plan policies: rules in CEL over a plan, shaped like Spacelift's plan policy input so that teams can
 * port their Rego by reading it. Pure: compiled once when the config loads, evaluated per plan.
 */
import type { RunKind } from '../run/state.js';

export const POLICY_EFFECTS = ['deny', 'require_approval', 'warn', 'minor', 'ignore'] as const;
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];

/** A rule as written in driftgate.yml (`policies.rules`) or in a policy file. */
export interface PolicyRule {
  name: string;
  description?: string;
  /** `resource`: `when` is evaluated once per resource change, with `resource` bound; `plan`: once. */
  scope: 'resource' | 'plan';
  /** A CEL expression that is true when the rule applies. */
  when: string;
  /** Shown to people; `{{ expr }}` parts are CEL evaluated in the same context (e.g. `{{ resource.address }}`). */
  message?: string;
  effect: PolicyEffect;
  /** require_approval: how many distinct approvals, from which approver groups. */
  count?: number;
  from?: string[];
}

/** One resource change as policies see it: terraform's fields, values masked. */
export interface PolicyResourceChange {
  address: string;
  type: string;
  name: string;
  mode: 'managed' | 'data';
  provider_name: string;
  module_address?: string;
  /** terraform's actions: ["update"], ["delete", "create"] (replace), … */
  actions: string[];
  /** Sensitive values are "(sensitive value)" here: a policy never sees a secret. */
  before: unknown;
  after: unknown;
  /** Attribute paths (a.b[0].c) whose value changes. */
  changed_attributes: string[];
  /** Set when the resource was moved (`moved` block): its address in the prior state. */
  previous_address?: string;
  /** Set when the change imports the resource. */
  importing?: boolean;
}

/** The input of every rule: `terraform.resource_changes`, `stack`, `run`, and `resource` for resource rules. */
export interface PolicyInput {
  terraform: {
    /** What applying the plan would change. */
    resource_changes: PolicyResourceChange[];
    /** What changed outside terraform, seen by refresh. */
    resource_drift: PolicyResourceChange[];
  };
  stack: { name: string; environment: string; labels: string[] };
  run: { kind: RunKind };
  /**
   * Who changed the drifted resources, from change events or CloudTrail (empty when unknown); and why each
   * changed or drifted resource differs, one entry per resource and cause (docs/policies.md).
   */
  drift: { changes: PolicyChange[]; causes: PolicyCause[] };
}

export interface PolicyFinding {
  rule: string;
  effect: PolicyEffect;
  message: string;
  /** The resource a resource rule fired on. */
  address?: string;
  /**
   * The rule could not be evaluated (its expression threw, or gave no bool): the finding is a warning
   * that says why, and the rule counted as not matched. One per rule, on the first resource it failed on.
   */
  error?: true;
}

export interface PolicyApproval {
  rule: string;
  count: number;
  from: string[];
}

/** What the rules said about one plan. Stored with the run; rendered in Slack, the CLI and the audit log. */
export interface PolicyEvaluation {
  findings: PolicyFinding[];
  /** Any deny fired: the plan cannot be applied from Slack, nor automatically. */
  denied: boolean;
  /** Extra approval requirements, on top of the approvers rule. */
  approvals: PolicyApproval[];
  /** Every resource change is covered by a `minor` rule (and there is at least one). */
  allMinor: boolean;
  /** Addresses whose drift an `ignore` rule covers, with the rule. */
  ignored: { address: string; rule: string }[];
  /** Names of the rules that fired, once each, in rule order. */
  fired: string[];
}

/** A rule that cannot compile: its name, and where in its expression. */
export interface PolicyCompileIssue {
  rule: string;
  /** The rule's position in the list given to compilePolicies, to locate it in its file. */
  index: number;
  /** The rule's field at fault: `when` and `message` for expressions, the others for the rule's shape. */
  field: 'name' | 'scope' | 'when' | 'message' | 'count' | 'from';
  message: string;
}
