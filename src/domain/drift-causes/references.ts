/**
 * Which of the root module's input variables each resource's configuration reads, from the plan's
 * `configuration`: a resource's own expressions (`var.x`), and for a resource in a module, the
 * expressions of every module call on its way down. A variable read through a `local` is not traced: the
 * plan JSON does not show locals, so such a resource is not said to have changed because of it.
 */
import type { PlanJson, PlanModuleConfig } from '../plan/schema.js';

/** Every `references` list anywhere under an expressions object. */
function collectReferences(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectReferences(item, into);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'references' && Array.isArray(value)) {
      for (const ref of value)
        if (typeof ref === 'string' && ref.startsWith('var.')) into.add(ref.slice(4).split('.')[0]!);
    } else collectReferences(value, into);
  }
}

/** The configured resource an instance comes from: `module.a[0].module.b.x.y["k"]` -> `a.b/x.y`. */
export function configKey(address: string): string {
  const parts: string[] = [];
  let rest = address;
  for (;;) {
    const m = /^module\.([A-Za-z0-9_-]+)(?:\[[^\]]*\])?\./.exec(rest);
    if (!m) break;
    parts.push(m[1]!);
    rest = rest.slice(m[0].length);
  }
  return `${parts.join('.')}/${rest.replace(/\[[^\]]*\]$/, '')}`;
}

/**
 * Configured resource (configKey) -> the root variables it reads. Inside a module, `var.x` is the module's
 * own input: what counts is which root variables the calls on the way down pass.
 */
export function variableReferences(plan: Pick<PlanJson, 'configuration'>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const visit = (module: PlanModuleConfig | undefined, path: string[], inherited: Set<string> | undefined) => {
    if (!module) return;
    const resources = (module.resources ?? []) as { address?: unknown; expressions?: unknown }[];
    for (const r of Array.isArray(resources) ? resources : []) {
      if (typeof r.address !== 'string') continue;
      const refs = new Set<string>();
      if (inherited) for (const v of inherited) refs.add(v);
      else collectReferences(r.expressions, refs);
      out.set(`${path.join('.')}/${r.address}`, refs);
    }
    for (const [name, call] of Object.entries(module.module_calls ?? {})) {
      const refs = new Set<string>(inherited ?? []);
      // A call at the root passes root variables; deeper, every root variable that reached it goes on.
      if (!inherited) collectReferences(call.expressions, refs);
      visit(call.module, [...path, name], refs);
    }
  };
  visit(plan.configuration?.root_module, [], undefined);
  return out;
}
