import { z } from 'zod';
import { resourceIdentifiers } from './resource-index.js';

/**
 * A stack's resources from its raw state (`terraform state pull`): the index's cheap source after a
 * clean plan, which runs no `show -json`. The state's serial and lineage say whether it changed since
 * it was last indexed, so an unchanged state is not walked again.
 */

const StateInstance = z.looseObject({
  index_key: z.union([z.string(), z.number()]).optional(),
  attributes: z.unknown().optional(),
});

const StateResource = z.looseObject({
  module: z.string().optional(),
  mode: z.string(),
  type: z.string(),
  name: z.string(),
  instances: z.array(StateInstance).default([]),
});

/** State format 4 (terraform 0.12 and later, OpenTofu): only what the index reads. */
export const RawState = z.looseObject({
  version: z.number(),
  serial: z.number().int(),
  lineage: z.string(),
  resources: z.array(StateResource).default([]),
});

/** Which state a stack's index was built from; absent fields: built from a plan's prior state. */
export interface StateVersion {
  serial?: number;
  lineage?: string;
}

export interface StateResources {
  version: Required<StateVersion>;
  resources: { address: string; identifiers: string[] }[];
}

function instanceAddress(resource: z.infer<typeof StateResource>, key: string | number | undefined): string {
  const base = `${resource.module ? `${resource.module}.` : ''}${resource.type}.${resource.name}`;
  if (key === undefined) return base;
  return typeof key === 'number' ? `${base}[${key}]` : `${base}[${JSON.stringify(key)}]`;
}

export function sameState(a: StateVersion | undefined, b: StateVersion): boolean {
  return a?.serial !== undefined && a.serial === b.serial && a.lineage === b.lineage;
}

/** The managed resources of a raw state with their identifiers; throws a ZodError when it is not one. */
export function stateResources(raw: unknown): StateResources {
  const state = RawState.parse(raw);
  const resources: StateResources['resources'] = [];
  for (const resource of state.resources) {
    if (resource.mode !== 'managed') continue;
    for (const instance of resource.instances) {
      const identifiers = resourceIdentifiers(resource.type, instance.attributes);
      if (identifiers.length) resources.push({ address: instanceAddress(resource, instance.index_key), identifiers });
    }
  }
  return { version: { serial: state.serial, lineage: state.lineage }, resources };
}
