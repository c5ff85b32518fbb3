/**
 * The part of `terraform providers schema -json` (format_version 1.x) the codify planner needs: for each
 * managed resource type, which attributes the code may set, which are computed, which are sensitive, and
 * its nested block types. Data sources, functions and descriptions are not read.
 */
import { z } from 'zod';
import { DriftgateError, formatConfigIssues, type ConfigIssue } from '../errors.js';
import { formatPath, type PathSegment } from '../plan/paths.js';

export interface AttributeSchema {
  required: boolean;
  optional: boolean;
  computed: boolean;
  sensitive: boolean;
}

export type NestingMode = 'single' | 'group' | 'list' | 'set' | 'map';

export interface BlockSchema {
  attributes: Record<string, AttributeSchema>;
  blockTypes: Record<string, { nesting: NestingMode; block: BlockSchema }>;
}

/** Resource type -> schema, over every provider of the stack. */
export interface ProviderSchema {
  resources: ReadonlyMap<string, BlockSchema>;
}

/** The provider schema JSON is not what driftgate reads; `issues` say where. */
export class ProviderSchemaError extends DriftgateError {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super(
      'PROVIDER_SCHEMA_INVALID',
      formatConfigIssues(issues).replace('invalid config:', 'invalid provider schema JSON:'),
    );
    this.issues = issues;
  }
}

const AttributeSchemaJson = z
  .looseObject({
    required: z.boolean().optional(),
    optional: z.boolean().optional(),
    computed: z.boolean().optional(),
    sensitive: z.boolean().optional(),
  })
  .transform(
    (a): AttributeSchema => ({
      required: a.required ?? false,
      optional: a.optional ?? false,
      computed: a.computed ?? false,
      sensitive: a.sensitive ?? false,
    }),
  );

const BlockSchemaJson: z.ZodType<BlockSchema, unknown> = z.lazy(() =>
  z
    .looseObject({
      attributes: z.record(z.string(), AttributeSchemaJson).optional(),
      block_types: z
        .record(
          z.string(),
          z.looseObject({ nesting_mode: z.enum(['single', 'group', 'list', 'set', 'map']), block: BlockSchemaJson }),
        )
        .optional(),
    })
    .transform(
      (b): BlockSchema => ({
        attributes: b.attributes ?? {},
        blockTypes: Object.fromEntries(
          Object.entries(b.block_types ?? {}).map(([name, t]) => [name, { nesting: t.nesting_mode, block: t.block }]),
        ),
      }),
    ),
);

const ProviderSchemaJson = z.looseObject({
  format_version: z
    .string()
    .regex(/^1\./, 'unsupported format_version: driftgate reads provider schema JSON format 1.x'),
  provider_schemas: z
    .record(
      z.string(),
      z.looseObject({ resource_schemas: z.record(z.string(), z.looseObject({ block: BlockSchemaJson })).optional() }),
    )
    .optional(),
});

const MAX_ISSUES = 20;

/** Parses the text of `terraform providers schema -json`. Throws ProviderSchemaError. */
export function parseProviderSchema(text: string): ProviderSchema {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    const where = text.trim() === '' ? 'the text is empty' : 'syntax error';
    throw new ProviderSchemaError([
      { path: '', message: `not JSON (${where}); expected the output of \`terraform providers schema -json\`` },
    ]);
  }
  const parsed = ProviderSchemaJson.safeParse(raw);
  if (!parsed.success) {
    throw new ProviderSchemaError(
      parsed.error.issues.slice(0, MAX_ISSUES).map((issue) => ({
        path: formatPath(issue.path.filter((s): s is PathSegment => typeof s !== 'symbol')),
        message: issue.message,
      })),
    );
  }
  const resources = new Map<string, BlockSchema>();
  const ambiguous = new Set<string>();
  for (const provider of Object.values(parsed.data.provider_schemas ?? {})) {
    for (const [type, schema] of Object.entries(provider.resource_schemas ?? {})) {
      if (resources.has(type)) ambiguous.add(type);
      resources.set(type, schema.block);
    }
  }
  // Two providers of one stack declaring the same type: which one a resource uses is not known here.
  for (const type of ambiguous) resources.delete(type);
  return { resources };
}

function attributeOf(schema: ProviderSchema, resourceType: string, attribute: string): AttributeSchema | undefined {
  const attributes = schema.resources.get(resourceType)?.attributes;
  return attributes && Object.hasOwn(attributes, attribute) ? attributes[attribute] : undefined;
}

/**
 * Whether the code may set a top-level attribute it does not set yet: `true` when it is required or only
 * optional, `false` when it is computed only. `undefined` when unknown (type or attribute not in the
 * schema, a nested block, which is not written as an attribute) and for optional+computed attributes:
 * one of those the code leaves unset only changes in a plan when the provider derives it from other
 * settings (`tags_all` from `tags` and default_tags), so writing its value would pin a derived value.
 */
export function settableFrom(schema: ProviderSchema): (resourceType: string, attribute: string) => boolean | undefined {
  return (resourceType, attribute) => {
    const a = attributeOf(schema, resourceType, attribute);
    if (!a) return undefined;
    if (a.required || (a.optional && !a.computed)) return true;
    return a.optional ? undefined : false;
  };
}

/** Whether the provider marks a top-level attribute sensitive; undefined when unknown. */
export function sensitiveFrom(
  schema: ProviderSchema,
): (resourceType: string, attribute: string) => boolean | undefined {
  return (resourceType, attribute) => attributeOf(schema, resourceType, attribute)?.sensitive;
}
