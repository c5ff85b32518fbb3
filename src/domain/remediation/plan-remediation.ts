/**
 * The codify planner: from a plan with `resource_drift` and the stack's `.tf` files, the edits that make
 * the code equal to the real infrastructure, the rewritten files, and what was left for a person with
 * guidance. Pure: no I/O. Nothing is guessed: whatever cannot be matched to a literal in the root module
 * is skipped with a reason, and a sensitive value never reaches an edit, a reason or a guidance text.
 */
import type { Redactor } from '../plan/model.js';
import { formatPath, type PathSegment } from '../plan/paths.js';
import type { PlanJson, PlanResourceChange } from '../plan/schema.js';
import { type ConfigResource, configResources, expressionAt } from './config-expressions.js';
import { type Declarations, declarationsOf, type StackFile } from './declarations.js';
import { createFileEdits, type FileEdits } from './file-edits.js';
import { type DriftedAttributes, driftedAttributes } from './drifted-attributes.js';
import * as guide from './remediation-guidance.js';

export type { StackFile } from './declarations.js';

export interface RemediationEdit {
  file: string;
  address: string;
  path: PathSegment[];
  /** The real-world value written into the code. */
  value: unknown;
  /** What the code gave before (undefined when the attribute was added). */
  before: unknown;
}

export const SKIP_CODES = [
  'in-module',
  'count-or-for-each',
  'created-outside-terraform',
  'deleted-outside-terraform',
  'missing-from-state',
  'missing-from-code',
  'not-in-configuration',
  'not-declared-in-files',
  'sensitive',
  'reference',
  'expression',
  'computed',
  'maybe-computed',
  'rewrite-refused',
] as const;

export type SkipCode = (typeof SKIP_CODES)[number];

export interface RemediationSkip {
  address: string;
  attribute?: string;
  code: SkipCode;
  reason: string;
  guidance: string;
}

export interface RemediationPlan {
  edits: RemediationEdit[];
  skipped: RemediationSkip[];
  /** The files that changed, with their new text. */
  files: StackFile[];
}

export interface RemediationOptions {
  redactor: Redactor;
  /**
   * From the provider schema when the caller has it: whether an attribute the code does not set can be
   * set (`true`), is computed only (`false`), or is not known (`undefined`, the default: skipped).
   */
  settable?: (resourceType: string, attribute: string) => boolean | undefined;
}

interface ResourceContext {
  drift: PlanResourceChange;
  config: ConfigResource;
  file: string;
  attrs: DriftedAttributes;
}

type Outcome = { edit: RemediationEdit } | { skip: RemediationSkip };

function priorAddresses(plan: PlanJson): Set<string> {
  return new Set((plan.prior_state?.values?.root_module?.resources ?? []).map((r) => r.address));
}

/** Why a whole resource is left alone, or undefined when its attributes can be looked at. */
function resourceSkip(
  drift: PlanResourceChange,
  prior: Set<string>,
): Pick<RemediationSkip, 'code' | 'reason' | 'guidance'> | undefined {
  const actions = drift.change.actions;
  if (drift.module_address !== undefined || drift.address.startsWith('module.')) {
    return {
      code: 'in-module',
      reason: 'inside a module',
      guidance: `codify ${drift.address} in the module's code, or in the arguments of its module call`,
    };
  }
  if (drift.index !== undefined || drift.address.includes('[')) {
    return {
      code: 'count-or-for-each',
      reason: 'a count/for_each instance',
      guidance: `one value in the code applies to every instance of ${drift.type}.${drift.name}: decide by hand whether ${drift.address}'s change belongs in the code`,
    };
  }
  if (actions.includes('create')) {
    return {
      code: 'created-outside-terraform',
      reason: 'created outside terraform',
      guidance: `write a resource block for ${drift.address} and import it, or delete it`,
    };
  }
  if (actions.includes('delete') || !prior.has(drift.address)) {
    return {
      code: 'deleted-outside-terraform',
      reason: 'deleted outside terraform (not in the prior state)',
      guidance: `remove the ${drift.address} block from the code, or let apply recreate it`,
    };
  }
  return undefined;
}

function skip(
  ctx: ResourceContext,
  segments: PathSegment[],
  code: SkipCode,
  reason: string,
  guidance: string,
): Outcome {
  return { skip: { address: ctx.drift.address, attribute: formatPath(segments), code, reason, guidance } };
}

function absentOutcome(
  ctx: ResourceContext,
  path: PathSegment[],
  place: guide.Place,
  options: RemediationOptions,
): Outcome {
  const top = String(path[0]);
  const settable = options.settable?.(ctx.drift.type, top);
  if (settable === true)
    return {
      edit: { file: ctx.file, address: ctx.drift.address, path, value: ctx.attrs.real(path), before: undefined },
    };
  const known = settable === false;
  return skip(
    ctx,
    path,
    known ? 'computed' : 'maybe-computed',
    known ? 'computed by the provider' : 'not in the configuration; maybe computed',
    guide.unsettableGuidance(place, known),
  );
}

function attributeOutcome(
  ctx: ResourceContext,
  segments: PathSegment[],
  declared: Declarations,
  options: RemediationOptions,
): Outcome | undefined {
  const { expression, depth } = expressionAt(ctx.config.expressions, segments);
  // An attribute the code does not set is added whole: its parents do not exist to write into.
  const path = expression.kind === 'absent' ? segments.slice(0, depth + 1) : segments;
  // Unknown until apply: the provider derives it from what the code sets (terraform_data's output), so
  // it follows once the rest is codified and is nothing for a person to do.
  if (expression.kind === 'absent' && ctx.attrs.computed(path)) return undefined;
  const place: guide.Place = {
    where: `${ctx.drift.address}.${formatPath(path)}`,
    attribute: formatPath(path),
    file: ctx.file,
  };
  if (ctx.attrs.sensitive(path)) {
    const redacted = path.map((s) => (typeof s === 'string' ? options.redactor.redact(s) : s));
    const safe = { ...place, where: `${ctx.drift.address}.${formatPath(redacted)}`, attribute: formatPath(redacted) };
    return skip(ctx, redacted, 'sensitive', 'not codified: sensitive', guide.sensitiveGuidance(safe));
  }
  const value = ctx.attrs.real(path);
  switch (expression.kind) {
    case 'constant':
      return { edit: { file: ctx.file, address: ctx.drift.address, path, value, before: ctx.attrs.code(path) } };
    case 'references':
      return skip(
        ctx,
        path,
        'reference',
        `set from ${expression.references.join(', ')}`,
        guide.referenceGuidance(place, expression.references, declared, depth === path.length, value),
      );
    case 'expression':
      return skip(
        ctx,
        path,
        'expression',
        'set by an expression, not a literal',
        guide.expressionGuidance(place, value),
      );
    case 'absent':
      return absentOutcome(ctx, path, place, options);
  }
}

/** Applies an edit to the current text of its file; a refusal becomes a skip naming the rewriter's reason. */
function applyEdit(ctx: ResourceContext, edit: RemediationEdit, edits: FileEdits): Outcome {
  const result = edits.rewrite(edit.file, {
    resourceType: ctx.drift.type,
    resourceName: ctx.drift.name,
    path: edit.path,
    value: edit.value,
  });
  if (!result.ok) {
    const place = {
      where: `${edit.address}.${formatPath(edit.path)}`,
      attribute: formatPath(edit.path),
      file: edit.file,
    };
    return skip(ctx, edit.path, 'rewrite-refused', result.reason, guide.handEditGuidance(place, edit.value));
  }
  return { edit };
}

function resourceContext(
  drift: PlanResourceChange,
  planned: PlanResourceChange | undefined,
  config: ConfigResource | undefined,
  declared: Declarations,
  redactor: Redactor,
): ResourceContext | RemediationSkip {
  const address = drift.address;
  if (!config)
    return {
      address,
      code: 'not-in-configuration',
      reason: 'not in the root module configuration',
      guidance: `find where ${address} is declared and codify it by hand`,
    };
  const declaring = declared.resource(drift.type, drift.name);
  if (declaring.length !== 1) {
    const where = declaring.length
      ? `declared in ${declaring.length} files (${declaring.join(', ')})`
      : "not declared in the stack's files";
    return {
      address,
      code: 'not-declared-in-files',
      reason: where,
      guidance: `codify ${address} by hand in the file that declares it`,
    };
  }
  const noChange: PlanResourceChange = { ...drift, change: { ...drift.change, before: drift.change.after } };
  return { drift, config, file: declaring[0]!, attrs: driftedAttributes(drift, planned ?? noChange, redactor) };
}

const isChange = (rc: PlanResourceChange) =>
  rc.mode === 'managed' && !rc.change.actions.every((a) => a === 'no-op' || a === 'read');

/**
 * A planned change that refresh did not report as drift: the state disagrees with the code on its own
 * (it was edited, or a resource was removed from it). The state is terraform's record of what is real,
 * so an update or replacement is read as drift from the code to the state; a resource only one of the
 * two has is for a person.
 */
function unexplainedChange(rc: PlanResourceChange): PlanResourceChange | RemediationSkip {
  const actions = rc.change.actions;
  if (actions.length === 1 && actions[0] === 'create') {
    return {
      address: rc.address,
      code: 'missing-from-state',
      reason: 'in the code but not in the state',
      guidance: `if ${rc.address} still exists, \`terraform import\` it; if it is gone for good, remove its block from the code`,
    };
  }
  if (actions.length === 1 && actions[0] === 'delete') {
    return {
      address: rc.address,
      code: 'missing-from-code',
      reason: 'in the state but not in the code',
      guidance: `write a block for ${rc.address} into the code, or \`terraform state rm\` it if terraform should stop managing it`,
    };
  }
  const c = rc.change;
  return {
    ...rc,
    change: {
      ...c,
      actions: ['update'],
      before: c.after,
      after: c.before,
      before_sensitive: c.after_sensitive,
      after_sensitive: c.before_sensitive,
      after_unknown: {},
    },
  };
}

/** What to codify: refresh's drift, then the changes of a drift plan that refresh did not explain. */
function driftOf(plan: PlanJson, out: RemediationPlan, redactor: Redactor): PlanResourceChange[] {
  const reported = plan.resource_drift ?? [];
  const explained = new Set(reported.map((d) => d.address));
  const rest: PlanResourceChange[] = [];
  for (const rc of (plan.resource_changes ?? []).filter((c) => isChange(c) && !explained.has(c.address))) {
    const drift = unexplainedChange(rc);
    if ('change' in drift) rest.push(drift);
    else
      out.skipped.push({
        ...drift,
        address: redactor.redact(drift.address),
        guidance: redactor.redact(drift.guidance),
      });
  }
  return [...reported, ...rest];
}

/**
 * The plan must be of a drift run (at the commit last applied): every change it plans is reality and
 * code disagreeing. A pending change's plan would be read as drift and undo the change.
 */
export function planRemediation(
  plan: PlanJson,
  files: readonly StackFile[],
  options: RemediationOptions,
): RemediationPlan {
  const out: RemediationPlan = { edits: [], skipped: [], files: [] };
  const prior = priorAddresses(plan);
  const configs = configResources(plan);
  const planned = new Map((plan.resource_changes ?? []).map((rc) => [rc.address, rc]));
  const declared = declarationsOf(files);
  const edits = createFileEdits(files);
  for (const drift of driftOf(plan, out, options.redactor)) {
    if (drift.mode !== 'managed') continue;
    const whole = resourceSkip(drift, prior);
    if (whole) {
      out.skipped.push({
        address: options.redactor.redact(drift.address),
        ...whole,
        guidance: options.redactor.redact(whole.guidance),
      });
      continue;
    }
    const ctx = resourceContext(
      drift,
      planned.get(drift.address),
      configs.get(drift.address),
      declared,
      options.redactor,
    );
    if ('code' in ctx) {
      out.skipped.push(ctx);
      continue;
    }
    const seen = new Set<string>();
    for (const segments of ctx.attrs.paths) {
      let outcome = attributeOutcome(ctx, segments, declared, options);
      if (!outcome) continue;
      // Leaves of an attribute the code does not set all become the one attribute added.
      const key = 'edit' in outcome ? formatPath(outcome.edit.path) : `${outcome.skip.code}:${outcome.skip.attribute}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if ('edit' in outcome) outcome = applyEdit(ctx, outcome.edit, edits);
      if ('edit' in outcome) out.edits.push(outcome.edit);
      else out.skipped.push(outcome.skip);
    }
  }
  out.files = edits.changed();
  return out;
}
