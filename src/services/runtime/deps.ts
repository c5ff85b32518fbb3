import type { Stack } from '../../domain/stack.js';
import type { Attribution, PolicyChange } from '../../domain/change-events/attribution.js';
import type { PolicyCause } from '../../domain/drift-causes/describe.js';
import type { Redactor } from '../../domain/plan/model.js';
import type { PlanJson } from '../../domain/plan/schema.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import type { RunKind } from '../../domain/run/state.js';
import type { ArtifactStore } from '../../ports/artifacts.js';
import type { Store } from '../../ports/store.js';
import type { TerraformRunner } from '../../ports/terraform.js';
import type { EventBus } from './event-bus.js';
import type { Logger } from '../../ports/logger.js';

/** Everything the run services need; built once by the composition root (src/app). */
export interface ServiceDeps {
  /** Runs, and what decisions leave on them (approvals); one database. */
  store: Store;
  artifacts: ArtifactStore;
  terraform: TerraformRunner;
  bus: EventBus;
  logger: Logger;
  /** Secrets learned from plans, so that logs written later mask them too. */
  /**
   * Secrets by stack (its config's values, then those its plans show), so that texts and logs written
   * later mask them too. `redact` with a stack masks that stack's; without one, every stack's.
   */
  secrets: {
    add(stack: string, redactor: Redactor): void;
    /** A stack's config secrets, for the process's life (a stack found after the start). */
    keep(stack: string, redactor: Redactor): void;
    redact(text: string, stack?: string): string;
    /** The stack's secrets known so far (config, varFiles, recent plans), as values to mask. */
    forStack(stack: string): Redactor[];
  };
  now: () => Date;
  /** Scratch space for saved plan files while terraform needs them on disk (0700). */
  workDir: string;
  timeouts: { plan: number; apply: number; killGrace: number };
  maxPlanAgeMs: number;
  /** How long a stack lock outlives its holder's last heartbeat (`defaults.lockTtl`). */
  lockTtlMs: number;
  /**
   * How long an apply waits for a stack another process holds (another replica's check or apply) before it
   * is refused as locked; default 0 (refused at once).
   */
  applyLockWaitMs?: number;
  /** Checks in a row with the same plan after which a stack is named as not converging. */
  notConvergingAfter: number;
  /** The config's policies over a plan (values masked by `redactor`); absent when there are none. */
  evaluatePolicies?: (
    plan: PlanJson,
    redactor: Redactor,
    stack: Stack,
    kind: RunKind,
    changes?: PolicyChange[],
    causes?: PolicyCause[],
  ) => PolicyEvaluation;
  /** Digest of the policies `evaluatePolicies` applies: a plan judged under others is not reused. */
  policyDigest?: string;
  /** With change events configured: who changed drifted resources, and the resource index kept current. */
  changeEvents?: CheckChangeEvents;
}

/** What a check tells change events (src/app/change-events.ts) and asks of them. */
export interface CheckChangeEvents {
  /**
   * Before the plan: where the changes waiting for the stack end. The check answers those; the ones that
   * come while it plans wait for the next check, which plans after them.
   */
  markWaiting(stack: Stack): Promise<number>;
  /** A plan with changes showed the stack's prior state: its resources are indexed from it. */
  indexPlan(stack: Stack, plan: PlanJson): Promise<void>;
  /** A clean plan: the index is refreshed from the state when it moved. */
  cleanPlan(stack: Stack, signal?: AbortSignal): Promise<void>;
  /**
   * Who changed the drifted resources; undefined when nothing says (no event, no lookup configured).
   * `upTo`: the check's mark of the waiting changes. `lookUp: false`: from waiting events only, not the
   * cloud's audit log (drift already attributed).
   */
  attribute(
    stack: Stack,
    drifted: readonly string[],
    options: { upTo: number; lookUp?: boolean },
  ): Promise<Attribution | undefined>;
  /** The check recorded what it found: the changes up to its mark are answered and wait no longer. */
  answered(stack: Stack, upTo: number): Promise<void>;
}

export type StackLookup = (name: string) => Stack | undefined;
