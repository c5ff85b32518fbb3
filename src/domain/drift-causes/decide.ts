/**
 * Why each resource of a drift alert or pending change differs, from the evidence at hand. Each cause
 * stands on its own evidence: a change event or CloudTrail call that names the resource; its provider's
 * version or its module's source/version not what the last apply (or clean check) recorded; a root
 * variable its configuration reads set otherwise; the code at a commit not yet applied; the state written
 * outside driftgate since. A resource none of them explains is `unknown`, saying what was missing. Pure.
 */
import type { AttributedChange, Attribution } from '../change-events/attribution.js';
import { STATE_ADDRESS } from '../change-events/state-address.js';
import type { RunKind } from '../run/state.js';
import type {
  ChangedInput,
  DriftCause,
  DriftCauses,
  ModuleSource,
  ReferenceEvidence,
  StackEvidence,
  StateWriter,
} from './model.js';
import { sourceWithoutCredentials } from './module-source.js';
import { configKey } from './references.js';

export interface CauseResource {
  address: string;
  /** terraform's provider_name: `registry.terraform.io/hashicorp/aws`. */
  providerName: string;
  moduleAddress?: string;
  /** Changed outside Terraform (a relevant `resource_drift` entry). */
  drifted: boolean;
}

export interface CauseEvidence {
  resources: readonly CauseResource[];
  kind: RunKind;
  commitSha?: string;
  lastAppliedCommit?: string;
  /** Who wrote the commit the run would apply, when known. */
  commitAuthor?: string;
  /** The last apply or clean check's record; undefined when there is none. */
  reference?: ReferenceEvidence;
  current: StackEvidence;
  /** Inputs that differ from the reference's (digested with its salt). */
  changedInputs: readonly ChangedInput[];
  /** configKey -> the root variables the resource's configuration reads (references.ts). */
  variableReferences: ReadonlyMap<string, ReadonlySet<string>>;
  attribution?: Attribution;
}

/** The module key a resource sits in (`vpc.subnets`), "" at the root. */
const moduleKey = (r: CauseResource) => configKey(r.address).split('/')[0]!;

function changedProviders(ref: StackEvidence, now: StackEvidence) {
  if (!ref.providers || !now.providers) return new Map<string, { from: string; to: string }>();
  const out = new Map<string, { from: string; to: string }>();
  for (const [provider, to] of Object.entries(now.providers)) {
    const from = ref.providers[provider];
    if (from !== undefined && from !== to) out.set(provider, { from, to });
  }
  return out;
}

function changedModules(ref: StackEvidence, now: StackEvidence) {
  const out = new Map<string, { from: ModuleSource; to: ModuleSource }>();
  if (!ref.modules || !now.modules) return out;
  for (const [key, to] of Object.entries(now.modules)) {
    const recorded = ref.modules[key];
    // Records kept before sources were masked hold them whole.
    const from = recorded && { ...recorded, source: sourceWithoutCredentials(recorded.source) };
    if (from && (from.source !== to.source || from.version !== to.version)) out.set(key, { from, to });
  }
  return out;
}

function stateMoved(ref: StackEvidence, now: StackEvidence) {
  if (!ref.state || !now.state) return undefined;
  const moved = ref.state.lineage !== now.state.lineage || ref.state.serial !== now.state.serial;
  return moved ? { from: ref.state, to: now.state } : undefined;
}

/**
 * The newest write of the state object since the record compared with: the state it left is this one.
 * CloudTrail times a call to the second, the record to the millisecond: a write in the record's own
 * second counts as since it (a write before the record's read would be no newer than the one that moved it).
 */
function stateWriter(writes: readonly AttributedChange[] | undefined, since: Date): StateWriter | undefined {
  const fromSecond = Math.floor(since.getTime() / 1000) * 1000;
  const newest = (writes ?? [])
    .filter((c) => c.at.getTime() >= fromSecond)
    .sort((a, b) => b.at.getTime() - a.at.getTime())[0];
  return newest
    ? { who: newest.principal.display, how: newest.how, eventName: newest.eventName, at: newest.at.toISOString() }
    : undefined;
}

/** Why nobody is named for a resource changed outside Terraform. */
function whoUnknown(attribution: Attribution | undefined): string {
  if (!attribution) return 'no change event or CloudTrail lookup named who changed it';
  if (attribution.status === 'unknown') return 'CloudTrail did not answer who changed it';
  if (attribution.status === 'none') return 'CloudTrail has no call that changed it';
  return 'no change event or CloudTrail call names it';
}

export function decideDriftCauses(e: CauseEvidence): DriftCauses {
  const ref = e.reference;
  const since = ref?.made ?? 'apply';
  const providers = ref ? changedProviders(ref.evidence, e.current) : new Map<string, { from: string; to: string }>();
  const modules = ref
    ? changedModules(ref.evidence, e.current)
    : new Map<string, { from: ModuleSource; to: ModuleSource }>();
  const state = ref ? stateMoved(ref.evidence, e.current) : undefined;
  const merged = e.kind === 'pending_change' && e.commitSha !== undefined;
  const byResource = new Map<string, NonNullable<Extract<Attribution, { status: 'found' }>['changes']>>();
  if (e.attribution?.status === 'found')
    for (const c of e.attribution.changes)
      if (c.resource) byResource.set(c.resource, [...(byResource.get(c.resource) ?? []), c]);

  const writer = state ? stateWriter(byResource.get(STATE_ADDRESS), ref!.at) : undefined;
  const out: DriftCauses = {};
  for (const r of e.resources) {
    const causes: DriftCause[] = [];
    if (r.drifted) {
      // The latest call of each principal and kind: one line per person and way, not per call.
      const seen = new Set<string>();
      const calls = [...(byResource.get(r.address) ?? [])].sort((a, b) => b.at.getTime() - a.at.getTime());
      for (const c of calls) {
        const key = `${c.principal.display}\u0000${c.how}`;
        if (seen.has(key)) continue;
        seen.add(key);
        causes.push({
          kind: 'out_of_band',
          who: c.principal.display,
          how: c.how,
          eventName: c.eventName,
          at: c.at.toISOString(),
        });
      }
    }
    const provider = providers.get(r.providerName);
    if (provider) causes.push({ kind: 'provider_version', provider: r.providerName, ...provider, since });
    const key = moduleKey(r);
    for (const [module, change] of modules)
      if (key === module || key.startsWith(`${module}.`))
        causes.push({ kind: 'module_version', module, ...change, since });
    const reads = e.variableReferences.get(configKey(r.address));
    for (const input of e.changedInputs)
      if (input.name !== '' && reads?.has(input.name)) causes.push({ kind: 'input', ...input, since });
    // A drifted resource's planned change puts back what was changed outside, not the merged code.
    if (merged && !r.drifted)
      causes.push({
        kind: 'merged_not_applied',
        commit: e.commitSha!,
        ...(e.lastAppliedCommit ? { lastApplied: e.lastAppliedCommit } : {}),
        ...(e.commitAuthor ? { author: e.commitAuthor } : {}),
      });
    if (state) causes.push({ kind: 'state_outside', ...state, since, ...(writer ? { writer } : {}) });
    if (causes.length === 0) causes.push({ kind: 'unknown', why: unknownWhy(e, r) });
    out[r.address] = causes;
  }
  return out;
}

function unknownWhy(e: CauseEvidence, r: CauseResource): string {
  const outside = r.drifted ? `${whoUnknown(e.attribution)}; ` : '';
  if (!e.reference)
    return `${outside}driftgate has no apply or clean check of this stack on record to compare its providers, modules, inputs and state with`;
  const unreadable = e.changedInputs.filter((i) => i.name === '' && i.source === 'var_file').map((i) => i.file);
  const files = unreadable.length ? `; varFile ${unreadable.join(', ')} changed` : '';
  return `${outside}no provider, module, input or state change since the last ${e.reference.made === 'apply' ? 'apply' : 'clean check'} explains it${files}`;
}
