import { globalRegistry, type z } from 'zod';
import { ConfigFile } from './schema.js';

/** One row of the option reference: an option's path, what it takes, its default and what it does. */
export interface OptionRow {
  path: string;
  type: string;
  default?: string;
  description?: string;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  discriminator?: string;
  element?: z.ZodType;
  valueType?: z.ZodType;
  entries?: Record<string, string>;
  values?: unknown[];
  defaultValue?: unknown;
  format?: string;
  checks?: { _zod: { def: { format?: string } } }[];
}

const defOf = (node: z.ZodType): Def => (node as unknown as { _zod: { def: Def } })._zod.def;

/** What the wrappers (optional, default, pipe) around an option say, outermost first, and the schema inside. */
interface Unwrapped {
  node: z.ZodType;
  description?: string;
  defaultIs?: string;
  format?: string;
  defaultValue?: unknown;
}

function unwrap(node: z.ZodType): Unwrapped {
  const found: Omit<Unwrapped, 'node'> = {};
  let current = node;
  for (;;) {
    const meta = globalRegistry.get(current);
    if (found.description === undefined && typeof meta?.description === 'string') found.description = meta.description;
    if (found.defaultIs === undefined && typeof meta?.defaultIs === 'string') found.defaultIs = meta.defaultIs;
    if (found.format === undefined && typeof meta?.format === 'string') found.format = meta.format;
    const def = defOf(current);
    if ((def.type === 'default' || def.type === 'prefault') && !('defaultValue' in found))
      found.defaultValue = def.defaultValue;
    if (def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in && !found.format) current = def.in;
    else return { node: current, ...found };
  }
}

/** A default as it is written in driftgate.yml: `30m`, `[driftgate]`, `{}`. */
function written(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(written).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${written(v)}`)
      .join(', ')}}`;
  return String(value);
}

function typeOf(node: z.ZodType, format: string | undefined): string {
  if (format) return format;
  const def = defOf(node);
  switch (def.type) {
    case 'enum':
      return Object.values(def.entries ?? {}).join(' / ');
    case 'literal':
      return (def.values ?? []).map(String).join(' / ');
    case 'array':
      return `list of ${typeOf(unwrap(def.element!).node, unwrap(def.element!).format)}`;
    case 'record':
      return 'map';
    case 'object':
      return 'mapping';
    case 'union':
      return [...new Set((def.options ?? []).map((o) => typeOf(unwrap(o).node, unwrap(o).format)))].join(' or ');
    case 'unknown':
      return 'any';
    case 'string':
      return def.format === 'url' ? 'URL' : 'string';
    case 'number':
      return def.checks?.some((c) => c._zod.def.format === 'safeint') ? 'integer' : 'number';
    default:
      return def.type;
  }
}

const isObject = (node: z.ZodType) => defOf(node).type === 'object';

/**
 * Rows for `node` at `path` and everything below it. A list's entries and a map's values have no row of
 * their own (`stacks[]`): the list's row says what they are.
 */
function rowsOf(node: z.ZodType, path: string, ownRow = true): OptionRow[] {
  const u = unwrap(node);
  const def = defOf(u.node);
  const row = (type: string): OptionRow => ({
    path,
    type,
    ...(u.defaultIs !== undefined
      ? { default: u.defaultIs }
      : u.defaultValue !== undefined && !isObject(u.node) && !def.discriminator
        ? { default: `\`${written(u.defaultValue)}\`` }
        : {}),
    ...(u.description !== undefined ? { description: u.description } : {}),
  });
  if (def.type === 'object') {
    return [
      ...(path && ownRow ? [row('mapping')] : []),
      ...Object.entries(def.shape ?? {}).flatMap(([key, child]) => rowsOf(child, path ? `${path}.${key}` : key)),
    ];
  }
  if (def.type === 'union' && def.discriminator) return variantRows(u, path);
  if (def.type === 'array' && isObject(unwrap(def.element!).node))
    return [row('list'), ...rowsOf(def.element!, `${path}[]`, false)];
  if (def.type === 'record' && isObject(unwrap(def.valueType!).node))
    return [row('map'), ...rowsOf(def.valueType!, `${path}.<name>`, false)];
  return [row(typeOf(u.node, u.format))];
}

/**
 * A discriminated union (`artifacts`, `store`, `runners`): one `type` row naming each variant, then each
 * variant's options, said once when several variants share one alike.
 */
function variantRows(u: Unwrapped, path: string): OptionRow[] {
  const def = defOf(u.node);
  const key = def.discriminator!;
  const variants = (def.options ?? []).map((option) => {
    const literal = unwrap(defOf(option).shape![key]!);
    const name = String(defOf(literal.node).values?.[0]);
    return { name, description: literal.description, shape: defOf(option).shape! };
  });
  const chosen = u.defaultValue as Record<string, unknown> | undefined;
  const rows: OptionRow[] = [
    {
      path: path ? `${path}.${key}` : key,
      type: variants.map((v) => v.name).join(' / '),
      ...(chosen?.[key] !== undefined ? { default: `\`${written(chosen[key])}\`` } : {}),
      description: [u.description, ...variants.map((v) => `\`${v.name}\`: ${v.description}`)]
        .filter(Boolean)
        .join('; '),
    },
  ];
  const merged = new Map<string, { rows: OptionRow[]; in: string[] }>();
  for (const variant of variants) {
    for (const [name, child] of Object.entries(variant.shape)) {
      if (name === key) continue;
      const childRows = rowsOf(child, `${path}.${name}`);
      const id = JSON.stringify(childRows);
      const entry = merged.get(id) ?? { rows: childRows, in: [] };
      entry.in.push(variant.name);
      merged.set(id, entry);
    }
  }
  for (const entry of merged.values()) {
    const when = entry.in.length === variants.length ? undefined : `With \`${key}: ${entry.in.join('` or `')}\``;
    rows.push(
      ...entry.rows.map((r) =>
        when && r.description ? { ...r, description: `${when}: ${lowerFirst(r.description)}` } : r,
      ),
    );
  }
  return rows;
}

/** Every option of driftgate.yml, in the schema's order. */
export function configurationOptions(schema: z.ZodType = ConfigFile): OptionRow[] {
  return rowsOf(schema, '');
}

/** `The bucket` -> `the bucket`, but `HTTPS only` stays. */
const lowerFirst = (text: string) => (/^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The option reference of docs/configuration.md, as a markdown table. */
export function configurationReference(schema: z.ZodType = ConfigFile): string {
  const lines = ['| option | type | default | what it does |', '| --- | --- | --- | --- |'];
  for (const row of configurationOptions(schema)) {
    lines.push(
      `| \`${cell(row.path)}\` | ${cell(row.type)} | ${cell(row.default ?? '')} | ${cell(row.description ?? '')} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
