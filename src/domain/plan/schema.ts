/**
 * The part of `terraform show -json <planfile>` (format_version 1.x) that driftgate relies on. Strict
 * about that structure, tolerant of everything else: newer terraform and OpenTofu add fields freely.
 * Values (before/after) and sensitivity/unknown marks stay `unknown`: they are walked, not validated.
 *
 * zod defines the structure and words every error, but a valid plan never reaches it: guards
 * (fast-checks.ts) check the document and its items, and only what they reject is handed to zod. So zod
 * is loaded and these schemas are built on the first rejected plan, not when the module loads: loading
 * them was about a fifth of a cold 10,000-resource analysis in a fresh process (bench/plan-analysis.ts).
 * zod is loaded with `require` (its CommonJS build) because parsing stays synchronous; a process that
 * also imports zod as ESM (the CLI does, for its config) then holds two copies, which only a malformed
 * plan costs.
 */
import { createRequire } from 'node:module';
import type * as Zod from 'zod';
import { PlanJsonError, type ConfigIssue } from '../errors.js';
import { isPlanShell, isResourceChange, isStateModuleShell, isStateResource } from './fast-checks.js';
import { formatPath, type PathSegment } from './paths.js';

export interface PlanModuleConfig {
  variables?: Record<string, { sensitive?: boolean; default?: unknown; [k: string]: unknown }>;
  module_calls?: Record<string, PlanModuleCall>;
  [k: string]: unknown;
}
export interface PlanModuleCall {
  /** Arguments of the call; a constant argument carries its value in `constant_value`. */
  expressions?: Record<string, unknown>;
  module?: PlanModuleConfig;
  [k: string]: unknown;
}

export interface PlanStateModule {
  resources?: { address: string; mode: string; values?: unknown; sensitive_values?: unknown; [k: string]: unknown }[];
  child_modules?: PlanStateModule[];
  [k: string]: unknown;
}

function buildSchemas(z: typeof Zod) {
  const PathSchema = z.array(z.union([z.string(), z.number()]));

  /** `forget` (terraform 1.7+ `removed` blocks) is kept so such plans parse; analyze maps it. */
  const TerraformActionSchema = z.enum(['no-op', 'create', 'read', 'update', 'delete', 'forget']);

  /** What a resource change and an output change share. */
  const changeValues = {
    actions: z.array(TerraformActionSchema).min(1),
    before: z.unknown(),
    after: z.unknown(),
    /** `true`, or an object/array of the after value's shape with `true` where the value is unknown. */
    after_unknown: z.unknown().optional(),
    /** `true`, or an object/array of the value's shape with `true` where it is sensitive. */
    before_sensitive: z.unknown().optional(),
    after_sensitive: z.unknown().optional(),
  };

  const PlanChangeSchema = z.looseObject({
    ...changeValues,
    replace_paths: z.array(PathSchema).optional(),
    importing: z.looseObject({ id: z.string().optional() }).optional(),
  });

  const PlanResourceChangeSchema = z.looseObject({
    address: z.string(),
    previous_address: z.string().optional(),
    module_address: z.string().optional(),
    mode: z.enum(['managed', 'data']),
    type: z.string(),
    name: z.string(),
    index: z.union([z.string(), z.number()]).optional(),
    provider_name: z.string(),
    deposed: z.string().optional(),
    change: PlanChangeSchema,
    action_reason: z.string().optional(),
  });

  const PlanOutputChangeSchema = z.looseObject(changeValues);

  const PlanModuleConfigSchema: Zod.ZodType<PlanModuleConfig> = z.lazy(() =>
    z.looseObject({
      variables: z
        .record(z.string(), z.looseObject({ sensitive: z.boolean().optional(), default: z.unknown().optional() }))
        .optional(),
      module_calls: z
        .record(
          z.string(),
          z.looseObject({
            expressions: z.record(z.string(), z.unknown()).optional(),
            module: PlanModuleConfigSchema.optional(),
          }),
        )
        .optional(),
    }),
  );

  const PlanStateResourceSchema = z.looseObject({
    address: z.string(),
    mode: z.string(),
    values: z.unknown().optional(),
    sensitive_values: z.unknown().optional(),
  });

  const PlanStateModuleSchema: Zod.ZodType<PlanStateModule> = z.lazy(() =>
    z.looseObject({
      resources: z.array(PlanStateResourceSchema).optional(),
      child_modules: z.array(PlanStateModuleSchema).optional(),
    }),
  );

  const StateOutputSchema = z.looseObject({ sensitive: z.boolean().optional(), value: z.unknown().optional() });

  const PlanJsonSchema = z.looseObject({
    format_version: z.string().regex(/^1\./, 'unsupported format_version: driftgate reads plan JSON format 1.x'),
    terraform_version: z.string(),
    variables: z.record(z.string(), z.looseObject({ value: z.unknown().optional() })).optional(),
    resource_changes: z.array(PlanResourceChangeSchema).optional(),
    resource_drift: z.array(PlanResourceChangeSchema).optional(),
    /** The resource attributes the plan depends on (terraform 1.2+; left out when there are none). */
    relevant_attributes: z
      .array(z.looseObject({ resource: z.string(), attribute: z.array(z.union([z.string(), z.number()])) }))
      .optional(),
    output_changes: z.record(z.string(), PlanOutputChangeSchema).optional(),
    prior_state: z
      .looseObject({
        values: z
          .looseObject({
            outputs: z.record(z.string(), StateOutputSchema).optional(),
            root_module: PlanStateModuleSchema.optional(),
          })
          .optional(),
      })
      .optional(),
    configuration: z.looseObject({ root_module: PlanModuleConfigSchema.optional() }).optional(),
    errored: z.boolean().optional(),
    applyable: z.boolean().optional(),
    complete: z.boolean().optional(),
  });

  /** One module of prior_state, its lists left for item-by-item checks. */
  const StateModuleShellSchema = z.looseObject({
    resources: z.array(z.unknown()).optional(),
    child_modules: z.array(z.unknown()).optional(),
  });

  /**
   * The document with its bulk lists (resource changes, state resources) left unchecked: a 10,000-resource
   * plan has tens of thousands of those, and checking them through zod cost more than the whole analysis.
   * parsePlanJson checks each with an allocation-free guard and asks zod only about items that fail it.
   */
  const PlanShellSchema = PlanJsonSchema.extend({
    resource_changes: z.array(z.unknown()).optional(),
    resource_drift: z.array(z.unknown()).optional(),
    prior_state: z
      .looseObject({
        values: z
          .looseObject({
            outputs: z.record(z.string(), StateOutputSchema).optional(),
            root_module: z.unknown().optional(),
          })
          .optional(),
      })
      .optional(),
  });

  return {
    TerraformActionSchema,
    PlanChangeSchema,
    PlanResourceChangeSchema,
    PlanOutputChangeSchema,
    PlanModuleConfigSchema,
    PlanStateResourceSchema,
    PlanStateModuleSchema,
    PlanJsonSchema,
    StateModuleShellSchema,
    PlanShellSchema,
  };
}

export type PlanJsonSchemas = ReturnType<typeof buildSchemas>;

let schemas: PlanJsonSchemas | undefined;

/** The zod schemas of plan JSON, built on first use. */
export function planJsonSchemas(): PlanJsonSchemas {
  schemas ??= buildSchemas(createRequire(import.meta.url)('zod') as typeof Zod);
  return schemas;
}

export type TerraformAction = Zod.infer<PlanJsonSchemas['TerraformActionSchema']>;
export type PlanChange = Zod.infer<PlanJsonSchemas['PlanChangeSchema']>;
export type PlanResourceChange = Zod.infer<PlanJsonSchemas['PlanResourceChangeSchema']>;
export type PlanOutputChange = Zod.infer<PlanJsonSchemas['PlanOutputChangeSchema']>;
export type PlanJson = Zod.infer<PlanJsonSchemas['PlanJsonSchema']>;

const MAX_ISSUES = 20;

function toIssues(prefix: PathSegment[], error: Zod.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => ({
    path: formatPath([...prefix, ...issue.path.filter((s): s is PathSegment => typeof s !== 'symbol')]),
    message: issue.message,
  }));
}

function checkItems(
  list: unknown,
  path: PathSegment[],
  guard: (item: unknown) => boolean,
  schema: (all: PlanJsonSchemas) => Zod.ZodType,
  issues: ConfigIssue[],
): void {
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length && issues.length < MAX_ISSUES; i++) {
    if (guard(list[i])) continue;
    const result = schema(planJsonSchemas()).safeParse(list[i]);
    if (!result.success) issues.push(...toIssues([...path, i], result.error));
  }
}

function checkStateModule(module: unknown, path: PathSegment[], issues: ConfigIssue[]): void {
  if (module === undefined || issues.length >= MAX_ISSUES) return;
  if (!isStateModuleShell(module)) {
    const shell = planJsonSchemas().StateModuleShellSchema.safeParse(module);
    if (!shell.success) {
      issues.push(...toIssues(path, shell.error));
      return;
    }
  }
  const { resources, child_modules } = module as { resources?: unknown[]; child_modules?: unknown[] };
  checkItems(resources, [...path, 'resources'], isStateResource, (s) => s.PlanStateResourceSchema, issues);
  child_modules?.forEach((child, i) => {
    checkStateModule(child, [...path, 'child_modules', i], issues);
  });
}

/**
 * Parses the text of `terraform show -json`. The text holds secrets in clear, so no error built here
 * quotes it: JSON.parse's own message (which echoes the input) is reduced to a position.
 */
export function parsePlanJson(text: string): PlanJson {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const position = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    const where =
      text.trim() === '' ? 'the text is empty' : position ? `syntax error at character ${position}` : 'syntax error';
    throw new PlanJsonError([
      { path: '', message: `not JSON (${where}); expected the output of \`terraform show -json <planfile>\`` },
    ]);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new PlanJsonError([
      { path: '', message: 'expected a JSON object (the output of `terraform show -json <planfile>`)' },
    ]);
  }
  if (!isPlanShell(raw)) {
    const shell = planJsonSchemas().PlanShellSchema.safeParse(raw);
    if (!shell.success) throw new PlanJsonError(toIssues([], shell.error).slice(0, MAX_ISSUES));
  }
  const plan = raw as PlanJson;
  const issues: ConfigIssue[] = [];
  const resourceChange = (s: PlanJsonSchemas) => s.PlanResourceChangeSchema;
  checkItems(plan.resource_changes, ['resource_changes'], isResourceChange, resourceChange, issues);
  checkItems(plan.resource_drift, ['resource_drift'], isResourceChange, resourceChange, issues);
  checkStateModule(plan.prior_state?.values?.root_module, ['prior_state', 'values', 'root_module'], issues);
  if (issues.length > 0) throw new PlanJsonError(issues.slice(0, MAX_ISSUES));
  // The document itself, not zod's copy: they hold the same (nothing here transforms), and keeping
  // one object graph instead of two is a third less memory on a 10,000-resource plan.
  return plan;
}
