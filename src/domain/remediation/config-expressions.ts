/**
 * Reads the plan JSON's `configuration` section loosely: which resources the root module declares and,
 * per attribute path, whether the code holds a literal (`constant_value`), an expression with
 * `references`, or nothing at all. The plan schema keeps `configuration` as `unknown`-ish; only this
 * reader needs its resource expressions, so their shape lives here.
 */
import { z } from 'zod';
import type { PathSegment } from '../plan/paths.js';
import type { PlanJson } from '../plan/schema.js';

const ConfigResourceSchema = z.looseObject({
  address: z.string(),
  type: z.string(),
  name: z.string(),
  expressions: z.record(z.string(), z.unknown()).optional(),
});
export type ConfigResource = z.infer<typeof ConfigResourceSchema>;

const RootResourcesSchema = z.looseObject({
  root_module: z.looseObject({ resources: z.array(z.unknown()).optional() }).optional(),
});

const ExpressionSchema = z.looseObject({
  constant_value: z.unknown().optional(),
  references: z.array(z.string()).optional(),
});

/** Root-module resources by address; entries that do not look like resources are left out. */
export function configResources(plan: PlanJson): Map<string, ConfigResource> {
  const out = new Map<string, ConfigResource>();
  const root = RootResourcesSchema.safeParse(plan.configuration ?? {});
  for (const item of root.success ? (root.data.root_module?.resources ?? []) : []) {
    const resource = ConfigResourceSchema.safeParse(item);
    if (resource.success) out.set(resource.data.address, resource.data);
  }
  return out;
}

export type ConfigExpression =
  | { kind: 'constant' }
  | { kind: 'references'; references: string[] }
  /** Neither a constant nor references: a function call over literals, a template, … */
  | { kind: 'expression' }
  | { kind: 'absent' };

/**
 * What the code says at `segments`, and how deep the code goes (`depth` segments are in the code):
 * for `absent`, `segments[depth]` is the first name the code does not set. A constant or expression
 * covers everything beneath it, so its depth is where it was found.
 */
export function expressionAt(
  expressions: Record<string, unknown> | undefined,
  segments: readonly PathSegment[],
): { expression: ConfigExpression; depth: number } {
  let body: unknown = expressions ?? {};
  for (let i = 0; i < segments.length; i++) {
    const name = segments[i]!;
    if (typeof name !== 'string' || typeof body !== 'object' || body === null || !Object.hasOwn(body, name)) {
      return { expression: { kind: 'absent' }, depth: i };
    }
    const node: unknown = (body as Record<string, unknown>)[name];
    if (Array.isArray(node)) {
      // Nested blocks: one body per block, indexed by the next segment.
      const index = segments[i + 1];
      if (typeof index !== 'number') return { expression: { kind: 'expression' }, depth: i + 1 };
      body = node[index];
      i++;
      if (body === undefined) return { expression: { kind: 'absent' }, depth: i };
      continue;
    }
    const parsed = ExpressionSchema.safeParse(node);
    if (!parsed.success) return { expression: { kind: 'expression' }, depth: i + 1 };
    if (Object.hasOwn(parsed.data, 'constant_value')) return { expression: { kind: 'constant' }, depth: i + 1 };
    const references = parsed.data.references ?? [];
    return {
      expression: references.length > 0 ? { kind: 'references', references } : { kind: 'expression' },
      depth: i + 1,
    };
  }
  return { expression: { kind: 'expression' }, depth: segments.length };
}
