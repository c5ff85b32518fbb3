/** A cause in words (plain text: renderers escape it), and as the policy input's `drift.causes[]`. */
import type { ChangeHow } from '../change-events/describe.js';
import type { DriftCause, DriftCauses, InputSource } from './model.js';

/** How a call was made, as a phrase: `changed in the console`. */
export const HOW_TEXT: Record<ChangeHow, string> = {
  console: 'in the console',
  cli: 'with the AWS CLI',
  sdk: 'with an AWS SDK',
  terraform: 'with Terraform run outside driftgate',
  cloudformation: 'through CloudFormation',
  aws_service: 'by an AWS service',
  unknown: 'by an unknown client',
};

/** `registry.terraform.io/hashicorp/aws` -> `hashicorp/aws`. */
export const providerLabel = (address: string) => address.replace(/^registry\.terraform\.io\//, '');

const since = (made: 'apply' | 'clean_check') => (made === 'apply' ? 'the last apply' : 'the last clean check');

function where(source: InputSource, file: string | undefined, name: string): string {
  if (source === 'config') return 'in driftgate.yml';
  if (source === 'env') return `in the stack's env (TF_VAR_${name})`;
  if (source === 'process_env') return `in driftgate's own environment (TF_VAR_${name})`;
  return `in ${file ?? 'a varFile'}`;
}

const shortSha = (sha: string) => sha.slice(0, 7);

function ago(at: string, now: Date | undefined): string {
  const when = new Date(at);
  if (!now || Number.isNaN(when.getTime())) return `at ${at}`;
  const minutes = Math.max(0, Math.round((now.getTime() - when.getTime()) / 60_000));
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}

/** How the state moved: a new serial (written), or a new lineage (replaced). */
export function stateMove(cause: Extract<DriftCause, { kind: 'state_outside' }>): { verb: string; what: string } {
  return cause.from.lineage === cause.to.lineage
    ? { verb: 'written', what: `serial ${cause.from.serial} → ${cause.to.serial}` }
    : { verb: 'replaced', what: `lineage ${cause.from.lineage} → ${cause.to.lineage}` };
}

/** One line, e.g. "changed in the console by alice 14 min ago"; `now` makes times relative. */
export function causeText(cause: DriftCause, now?: Date): string {
  switch (cause.kind) {
    case 'out_of_band':
      return `changed ${HOW_TEXT[cause.how]} by ${cause.who} ${ago(cause.at, now)} (${cause.eventName})`;
    case 'provider_version':
      return `the ${providerLabel(cause.provider)} provider went from ${cause.from} to ${cause.to} since ${since(cause.since)}: this diff may be the provider's, not a person's`;
    case 'module_version': {
      const version = (m: { source: string; version: string }) => (m.version ? `${m.source} ${m.version}` : m.source);
      return `module ${cause.module} went from ${version(cause.from)} to ${version(cause.to)} since ${since(cause.since)}`;
    }
    case 'input': {
      const verb = cause.change === 'changed' ? 'changed' : cause.change === 'set' ? 'was set' : 'was unset';
      return `var.${cause.name} ${verb} ${where(cause.source, cause.file, cause.name)} since ${since(cause.since)}`;
    }
    case 'merged_not_applied':
      return `merged in ${shortSha(cause.commit)}${cause.author ? ` by ${cause.author}` : ''}, not applied`;
    case 'state_outside': {
      const { verb, what } = stateMove(cause);
      const w = cause.writer;
      const by = w ? ` ${HOW_TEXT[w.how]} by ${w.who} ${ago(w.at, now)} (${w.eventName})` : '';
      return `the state was ${verb} outside driftgate${by}: ${what}, no driftgate apply in between`;
    }
    case 'unknown':
      return `why unknown: ${cause.why}`;
  }
}

/**
 * Resources whose causes read the same, together, in the order first seen: a state written outside
 * driftgate explains every resource at once, and says so once. `text` writes one resource's causes.
 */
export function groupByCauses(
  causes: DriftCauses | undefined,
  text: (list: readonly DriftCause[]) => string,
): { text: string; addresses: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const [address, list] of Object.entries(causes ?? {})) {
    const line = text(list);
    groups.set(line, [...(groups.get(line) ?? []), address]);
  }
  return [...groups].map(([line, addresses]) => ({ text: line, addresses }));
}

/**
 * One cause of one resource as policies read it. Every field is present ("" when it does not apply):
 * CEL reads a missing key as an error, not as false. Never a variable's value.
 */
export interface PolicyCause {
  resource: string;
  kind: DriftCause['kind'];
  text: string;
  /**
   * out_of_band (and state_outside, when an event named who wrote the state): who, and how (console, cli,
   * sdk, terraform, cloudformation, aws_service, unknown).
   */
  who: string;
  how: string;
  /** provider_version: the provider's address; module_version: the module key. */
  provider: string;
  module: string;
  /** provider_version, module_version: versions (a module without one: its source); state_outside: serials. */
  from: string;
  to: string;
  /** input: the variable and where it is set (config, env, var_file). */
  variable: string;
  source: string;
  /** merged_not_applied: the commit and its author. */
  commit: string;
  author: string;
}

/** A cause of `kind` with every field that does not apply to it empty. */
export function blankPolicyCause(resource: string, kind: DriftCause['kind'], text = ''): PolicyCause {
  const blank = { who: '', how: '', provider: '', module: '', from: '', to: '' };
  return { resource, kind, text, ...blank, variable: '', source: '', commit: '', author: '' };
}

export function policyCauses(causes: DriftCauses | undefined): PolicyCause[] {
  const out: PolicyCause[] = [];
  for (const [resource, list] of Object.entries(causes ?? {}))
    for (const cause of list) {
      const base = blankPolicyCause(resource, cause.kind, causeText(cause));
      switch (cause.kind) {
        case 'out_of_band':
          Object.assign(base, { who: cause.who, how: cause.how });
          break;
        case 'provider_version':
          Object.assign(base, { provider: cause.provider, from: cause.from, to: cause.to });
          break;
        case 'module_version':
          // A module from a path or Git has no version: its source is what moved.
          Object.assign(base, {
            module: cause.module,
            from: cause.from.version || cause.from.source,
            to: cause.to.version || cause.to.source,
          });
          break;
        case 'input':
          Object.assign(base, { variable: cause.name, source: cause.source });
          break;
        case 'merged_not_applied':
          Object.assign(base, { commit: cause.commit, author: cause.author ?? '' });
          break;
        case 'state_outside':
          Object.assign(base, {
            from: String(cause.from.serial),
            to: String(cause.to.serial),
            ...(cause.writer ? { who: cause.writer.who, how: cause.writer.how } : {}),
          });
          break;
        case 'unknown':
          break;
      }
      out.push(base);
    }
  return out;
}
