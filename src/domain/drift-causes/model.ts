/**
 * Why a resource shows in a drift alert: the evidence driftgate has that explains its diff, one cause per
 * piece of evidence, or `unknown` with what was missing. Decided (decide.ts) from what the last apply or
 * clean check recorded against what this check read; never guessed.
 */
import type { ChangeHow } from '../change-events/describe.js';

/** A module call as `terraform init` resolved it (the plan file's module manifest). */
export interface ModuleSource {
  source: string;
  /** The registry version; "" for a module from Git or a path. */
  version: string;
}

/**
 * Where an input variable's value came from: driftgate.yml `vars`, the stack's `env` (TF_VAR_*), a varFile,
 * or a TF_VAR_* of driftgate's own environment that terraform inherits.
 */
export type InputSource = 'config' | 'env' | 'var_file' | 'process_env';

/** One input's digest (salted: a low-entropy secret's plain hash could be guessed back). */
export interface InputDigest {
  source: InputSource;
  /** The varFile, as the config names it, for `var_file`. */
  file?: string;
  name: string;
  digest: string;
}

/** What a check reads of a stack beside its plan; each part absent when it could not be read. */
export interface StackEvidence {
  terraformVersion?: string;
  /** Provider source address -> version, from the dependency lock file in the saved plan. */
  providers?: Record<string, string>;
  /** Module key (`vpc`, `vpc.subnets`) -> its source and version, from the plan's module manifest. */
  modules?: Record<string, ModuleSource>;
  inputs?: { salt: string; digests: InputDigest[] };
  /** The state as the backend held it when the plan ran. */
  state?: { serial: number; lineage: string };
}

/** The evidence recorded when the stack was last known in sync: after a driftgate apply, or a clean check. */
export interface ReferenceEvidence {
  made: 'apply' | 'clean_check';
  runId: string;
  at: Date;
  evidence: StackEvidence;
}

export interface ChangedInput {
  source: InputSource;
  file?: string;
  name: string;
  change: 'changed' | 'set' | 'unset';
}

/** Who wrote a stack's state object outside driftgate, as the change event of the write says. */
export interface StateWriter {
  who: string;
  how: ChangeHow;
  eventName: string;
  /** RFC 3339. */
  at: string;
}

export type DriftCause =
  /** Made outside Terraform by someone a change event or CloudTrail names. */
  | {
      kind: 'out_of_band';
      who: string;
      how: ChangeHow;
      eventName: string;
      /** RFC 3339: causes are stored with the run's analysis as JSON. */
      at: string;
    }
  | { kind: 'provider_version'; provider: string; from: string; to: string; since: ReferenceEvidence['made'] }
  | {
      kind: 'module_version';
      module: string;
      from: ModuleSource;
      to: ModuleSource;
      since: ReferenceEvidence['made'];
    }
  | ({ kind: 'input'; since: ReferenceEvidence['made'] } & ChangedInput)
  | { kind: 'merged_not_applied'; commit: string; lastApplied?: string; author?: string }
  | {
      kind: 'state_outside';
      from: { serial: number; lineage: string };
      to: { serial: number; lineage: string };
      since: ReferenceEvidence['made'];
      /** The newest write of the state object a change event named since, when one did (S3 backends). */
      writer?: StateWriter;
    }
  /** Nothing driftgate holds explains it; `why` says what was missing. */
  | { kind: 'unknown'; why: string };

export type DriftCauseKind = DriftCause['kind'];

/** Causes by resource address, for every resource a drift alert or a pending change shows. */
export type DriftCauses = Record<string, DriftCause[]>;
