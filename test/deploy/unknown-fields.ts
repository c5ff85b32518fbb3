import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ROOT } from './deploy-files.js';

/**
 * kubernetes-models validates types and required fields but lets unknown fields through, as the API server
 * does not with `kubectl apply --validate=strict`: a misspelt `readinesProbe` would pass. This walks an
 * object along the interfaces of kubernetes-models' type declarations (generated from Kubernetes' OpenAPI)
 * and names every field none of them declares.
 */
const NODE_MODULES = join(ROOT, 'node_modules');

interface Declared {
  /** Field -> its declared type, as written (`IIoK8sApiCoreV1Probe`, `Array<IIoK8sApiCoreV1EnvVar>`, `{`). */
  fields: Map<string, string>;
  /** Imported type name -> the .d.ts file declaring it. */
  imports: Map<string, string>;
}

const cache = new Map<string, Declared | undefined>();

/** The first interface a .d.ts file exports; undefined for a type alias (IntOrString, Quantity, Time). */
function declared(file: string): Declared | undefined {
  if (cache.has(file)) return cache.get(file);
  const text = readFileSync(file, 'utf8');
  const body = /^export interface \w+(?: extends [^{]+)? \{\n([\s\S]*?)^\}/m.exec(text)?.[1];
  const result = body
    ? {
        fields: new Map([...body.matchAll(/^ {4}"([^"]+)"\??: (.+?);?$/gm)].map((m) => [m[1]!, m[2]!])),
        imports: new Map(
          [...text.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)].map((m) => [m[1]!, importedFile(file, m[2]!)]),
        ),
      }
    : undefined;
  cache.set(file, result);
  return result;
}

function importedFile(from: string, specifier: string): string {
  const path = specifier.startsWith('.')
    ? resolve(dirname(from), specifier.replace(/\.js$/, '.d.ts'))
    : join(NODE_MODULES, `${specifier}.d.ts`);
  return path;
}

/** The .d.ts of a top-level kind: `apps/v1` `Deployment` -> kubernetes-models/apps/v1/Deployment.d.ts. */
export function kindDeclaration(apiVersion: string, kind: string): string {
  const file = join(NODE_MODULES, 'kubernetes-models', apiVersion, `${kind}.d.ts`);
  if (!existsSync(file)) throw new Error(`${apiVersion} ${kind}: kubernetes-models declares no such kind`);
  return file;
}

/** Paths of the fields of `value` that the declarations (from `file` down) do not know, e.g. `spec.template.spec.containers[0].readinesProbe`. */
export function unknownFields(value: unknown, file: string, path = ''): string[] {
  const shape = declared(file);
  if (!shape || value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const where = path ? `${path}.${key}` : key;
    const type = shape.fields.get(key);
    if (type === undefined) return [where];
    const element = /^Array<(\w+)>$/.exec(type)?.[1];
    const childFile = shape.imports.get(element ?? type);
    if (!childFile) return []; // a scalar, an enum, a map or an inline type: nothing below to check
    if (element && Array.isArray(child))
      return child.flatMap((item, i) => unknownFields(item, childFile, `${where}[${i}]`));
    return unknownFields(child, childFile, where);
  });
}
