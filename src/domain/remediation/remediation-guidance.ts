/**
 * What a person is told to do with drift driftgate did not codify: which file, which block, which
 * value. Texts that could hold a sensitive value are never built for sensitive attributes.
 */
import { hclLiteral } from './hcl-literal.js';
import type { Declarations } from './declarations.js';

/** Where a resource's attribute is, for a reader: `aws_s3_object.site.tags.Name in main.tf`. */
export interface Place {
  /** `aws_s3_object.site.content_type` */
  where: string;
  /** The attribute path inside the resource, `tags.Name`. */
  attribute: string;
  /** The file declaring the resource, when one does. */
  file?: string;
}

const inFile = (p: Place) => (p.file ? ` in ${p.file}` : '');

function declaredIn(paths: string[], fallback: string): string {
  return paths.length > 0 ? paths.join(', ') : fallback;
}

/** `var.content_type` from `var.content_type` or `var.tags["a"]`; undefined for anything else. */
function rootName(reference: string, prefix: 'var' | 'local'): string | undefined {
  const m = new RegExp(`^${prefix}\\.([A-Za-z_][\\w-]*)`).exec(reference);
  return m?.[1];
}

function targetText(p: Place, topLevel: boolean, value: unknown): string {
  return topLevel ? `to ${hclLiteral(value)}` : `so that ${p.attribute} is ${hclLiteral(value)}`;
}

/**
 * The code gets the value from elsewhere: say where to change it. terraform lists a reference and its
 * prefixes (`aws_s3_bucket.b.id`, `aws_s3_bucket.b`); one variable or one local gets a precise answer.
 */
export function referenceGuidance(
  p: Place,
  references: readonly string[],
  declared: Declarations,
  topLevel: boolean,
  value: unknown,
): string {
  const vars = [...new Set(references.map((r) => rootName(r, 'var')).filter((n) => n !== undefined))];
  const locals = [...new Set(references.map((r) => rootName(r, 'local')).filter((n) => n !== undefined))];
  const target = targetText(p, topLevel, value);
  if (vars.length === 1 && locals.length === 0 && references.every((r) => r.startsWith('var.'))) {
    const where = declaredIn(declared.variable(vars[0]!), 'variables.tf');
    return `set var.${vars[0]} (${where} or the stack's vars) ${target}`;
  }
  if (locals.length === 1 && vars.length === 0 && references.every((r) => r.startsWith('local.'))) {
    const where = declaredIn(declared.local(locals[0]!), "the stack's locals block");
    return `set local.${locals[0]} (${where}) ${target}`;
  }
  const longest = references.filter((r) => !references.some((o) => o !== r && o.startsWith(`${r}.`)));
  return `${p.where}${inFile(p)} is computed from ${longest.join(', ')}; change that expression so that it gives ${hclLiteral(value)}`;
}

export function sensitiveGuidance(p: Place): string {
  return `${p.where}${inFile(p)} changed outside terraform; its value is sensitive, so driftgate does not write it: update the code (or the secret it comes from) by hand`;
}

export function expressionGuidance(p: Place, value: unknown): string {
  return `${p.where}${inFile(p)} is set by an expression driftgate does not rewrite; change it so that it gives ${hclLiteral(value)}`;
}

export function unsettableGuidance(p: Place, known: boolean): string {
  const why = known ? 'the provider computes it' : 'the plan does not say whether the provider lets it be set';
  return `${p.where} is not in the configuration and ${why}; if it can be set, add ${p.attribute.split(/[.[]/)[0]} to the resource${inFile(p)} by hand, otherwise change the setting it is computed from`;
}

export function handEditGuidance(p: Place, value: unknown): string {
  return `edit ${p.file ?? 'the file declaring the resource'} by hand: set ${p.where} to ${hclLiteral(value)}`;
}
