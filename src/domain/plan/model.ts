/**
 * The analysed plan: what driftgate knows about a `terraform show -json` document once it is parsed.
 * Every value here is already masked (see redact.ts), so a PlanAnalysis can be stored, rendered,
 * posted to Slack or written into a pull request without leaking a secret.
 */
import type { DriftCauses } from '../drift-causes/model.js';

/** One action per resource; terraform's ["delete","create"] and ["create","delete"] are both `replace`. */
export type ChangeAction = 'create' | 'update' | 'delete' | 'replace' | 'read' | 'no-op';

/** A value on one side of a diff, masked. */
export type DiffValue =
  | { kind: 'absent' }
  | { kind: 'value'; value: unknown }
  | { kind: 'sensitive' }
  /** `(known after apply)`: from after_unknown. */
  | { kind: 'unknown' };

export const SENSITIVE_PLACEHOLDER = '(sensitive value)';
export const UNKNOWN_PLACEHOLDER = '(known after apply)';

export interface AttributeChange {
  /** Path inside the resource, e.g. `tags.Name`, `ingress[0].cidr_blocks[1]`, `input["a.b"]`. */
  path: string;
  /** The same path as segments, for code that walks HCL or JSON (issue: remediation PRs). */
  segments: (string | number)[];
  before: DiffValue;
  after: DiffValue;
  /** True when this attribute is (or is under) one of the plan's replace_paths. */
  forcesReplacement: boolean;
  /**
   * Set when both sides are strings holding a JSON object or array (a policy, container definitions): what
   * changed inside, masked like the rest (json-diff.ts). Empty `changes`: the same document written another way.
   */
  json?: JsonDiff;
}

/** One change inside a JSON-encoded attribute: `before` absent is an addition, `after` absent a removal. */
export interface JsonChange {
  /** e.g. `Statement[Sid="ReadLogs"].Action`, `[name="web"].environment[name="LOG_LEVEL"].value`. */
  path: string;
  before: DiffValue;
  after: DiffValue;
}

export interface JsonDiff {
  changes: JsonChange[];
  /** Changes beyond the ones kept (a rewritten document): counted, not listed. */
  omitted: number;
}

export interface ResourceChange {
  address: string;
  /** e.g. `module.vpc`; undefined at the root module. */
  moduleAddress?: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  index?: string | number;
  providerName: string;
  action: ChangeAction;
  /** For `replace`: which happens first. */
  replaceOrder?: 'delete-first' | 'create-first';
  /** terraform's action_reason, e.g. `replace_because_cannot_update`. */
  actionReason?: string;
  /** Set when the resource was moved (`moved` block): its address in the prior state. */
  previousAddress?: string;
  /** Set when the change imports the resource. */
  importing?: boolean;
  attributes: AttributeChange[];
  /** Paths (same notation as AttributeChange.path) that force replacement. */
  replacePaths: string[];
}

export interface OutputChange {
  name: string;
  action: ChangeAction;
  before: DiffValue;
  after: DiffValue;
  sensitive: boolean;
}

export interface ActionCounts {
  create: number;
  update: number;
  delete: number;
  replace: number;
  read: number;
}

export interface PlanAnalysis {
  terraformVersion: string;
  formatVersion: string;
  /** Planned changes to real infrastructure (no-op excluded). */
  changes: ResourceChange[];
  /**
   * Changes made outside terraform, seen by refresh (`resource_drift`), that matter: made or deleted outside,
   * or touching what the plan changes back or depends on (relevant-drift.ts).
   */
  drift: ResourceChange[];
  /** Addresses refresh reported changed whose change is noise (a provider's normalisation): not drift. */
  driftNotRelevant?: string[];
  outputs: OutputChange[];
  counts: ActionCounts;
  /** True when applying the plan would change something (resources or outputs). */
  hasChanges: boolean;
  /** sha256 (hex) of the semantic change set: same drift seen again gives the same fingerprint. */
  fingerprint: string;
  /** Number of resource instances in the prior state, for summaries. */
  resourceCount: number;
  /** `errored` plans (terraform marks a partial plan) cannot be applied. */
  applyable: boolean;
  /** Why each changed or drifted resource differs (domain/drift-causes); set by the check, not by analysis. */
  causes?: DriftCauses;
}

/**
 * Replaces every known secret in a text. Built from a plan (values marked sensitive anywhere, sensitive
 * variables); kept in memory only, never serialised.
 */
export interface Redactor {
  /** A text equal to a secret, or every distinctive secret inside it. */
  redact(text: string): string;
  /** Only distinctive secrets inside the text: for names (keys, paths), where equality is coincidence. */
  redactInside(text: string): string;
  /** Masks secrets inside any JSON-like value (scalars equal to a secret whatever their type, strings containing one). */
  redactValue<T>(value: T): T;
  /** How many distinct secret values are known. */
  readonly size: number;
}
