import type { Stack } from '../domain/stack.js';

export interface TerraformVersion {
  /** `terraform` or `tofu`, detected from `version -json`, not from the file name. */
  flavor: 'terraform' | 'tofu';
  version: string;
  /** Absolute path of the binary that was found. */
  path: string;
}

/** Captured output of one command; already cut to the configured size (the tail is kept). */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
  durationMs: number;
  /** True when output was longer than the limit and its head was dropped. */
  truncated: boolean;
  /** CPU time of terraform and its children (user + system), for benchmarks. */
  cpuMs?: number;
}

export interface PlanResult extends CommandOutput {
  /** From -detailed-exitcode: 0 no changes, 2 changes. (1 is thrown as TerraformError.) */
  hasChanges: boolean;
  /** Absolute path of the saved plan file written by -out. */
  planFile: string;
  /** Whether `init` ran for this plan (false when the init hash was unchanged). */
  initRan: boolean;
  /** The terraform that made the plan, when it ran elsewhere (a worker's): `version()` here may be another. */
  terraformVersion?: string;
}

export interface FmtReport {
  unformatted: string[];
  /** fmt's report (names and diffs), cut to the last lines. */
  diff: string;
}

export interface RunOptions {
  /** Aborts the command: terraform gets SIGINT, then SIGKILL after the kill grace. */
  signal?: AbortSignal;
}

/**
 * terraform (or tofu) for one stack. Implementations never pass secrets in argv: vars go through
 * TF_VAR_* in the child's environment.
 */
export interface TerraformRunner {
  version(): Promise<TerraformVersion>;
  /** `init` when needed, then `plan -detailed-exitcode -out=<planFile>`. */
  plan(stack: Stack, planFile: string, options?: RunOptions): Promise<PlanResult>;
  /** `show -json <planFile>`: the raw JSON text (holds secrets in clear; never log it). */
  showJson(stack: Stack, planFile: string, options?: RunOptions): Promise<string>;
  /**
   * `init` when needed, then `providers schema -json`: the raw JSON text, uncut (the AWS provider's alone
   * is ~14 MB). Holds no state or vars.
   */
  providersSchema(stack: Stack, options?: RunOptions): Promise<string>;
  /**
   * `init` when needed, then `state pull`: the raw state JSON from the backend, uncut (holds secrets in
   * clear; never log it). Reads the backend only: no provider starts, no refresh.
   */
  statePull(stack: Stack, options?: RunOptions): Promise<string>;
  /**
   * `fmt -check -diff` of the given files (relative to the stack dir): those not in canonical format and
   * the diff fmt would apply. Throws only when fmt cannot read them (a syntax error). Needs no init.
   */
  fmtCheck(stack: Stack, files: string[], options?: RunOptions): Promise<FmtReport>;
  /** `init` when needed, then `validate`; throws a TerraformError with terraform's diagnostics when invalid. */
  validate(stack: Stack, options?: RunOptions): Promise<void>;
  /** `apply` of a saved plan file. */
  apply(stack: Stack, planFile: string, options?: RunOptions): Promise<CommandOutput>;
  /**
   * The TF_VAR_* every terraform child inherits from the environment driftgate gives it (a stack's `env`
   * wins over them): inputs too. Absent where driftgate cannot see that environment (a pool's workers).
   */
  inheritedVars?(): Readonly<Record<string, string>>;
}
