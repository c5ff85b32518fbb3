import { z } from 'zod';

/**
 * What travels between the control plane and a worker for each op, parsed with zod on both sides: the
 * worker trusts no job it cannot read, the control plane no answer that is not its op's.
 */
const Sha = z.string().regex(/^[0-9a-f]{40,64}$/);

export const OpRequests = {
  /** `init` when needed, `plan -out`, and `show -json` when it has changes: one worker, one work dir. */
  plan: z.strictObject({ commitSha: Sha.optional() }),
  state_pull: z.strictObject({ commitSha: Sha.optional() }),
  /** The saved plan comes as the op's `plan` file; the worker checks it against `planSha256` before terraform. */
  apply: z.strictObject({ commitSha: Sha.optional(), planSha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  /** The run's plan JSON comes as the op's `plan_json` file; the drift is written into the code at `commitSha`. */
  codify: z.strictObject({ commitSha: Sha }),
  /** CloudTrail LookupEvents by a resource's name, with the pool's credentials in its region. */
  cloudtrail: z.strictObject({ resourceName: z.string().min(1).max(2048), since: z.iso.datetime() }),
} as const;
export type PlanOpRequest = z.infer<typeof OpRequests.plan>;
export type ApplyOpRequest = z.infer<typeof OpRequests.apply>;

/** A failure on the worker, as the control plane rebuilds it into the error a local run would have thrown. */
export const OpFailure = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('terraform'),
    command: z.string().max(200),
    exitCode: z.number().int().optional(),
    stderrTail: z.string().max(64_000),
    timedOut: z.boolean(),
  }),
  z.strictObject({ type: z.literal('stale_plan'), message: z.string().max(4_000), stderrTail: z.string().max(64_000) }),
  z.strictObject({
    type: z.literal('backend_credentials'),
    message: z.string().max(4_000),
    stderrTail: z.string().max(64_000),
  }),
  /** Anything else (a checkout that failed, a stack this worker's config lacks): said as it is. */
  z.strictObject({ type: z.literal('other'), message: z.string().max(8_000) }),
]);
export type OpFailure = z.infer<typeof OpFailure>;

/** A worker's failure in one line for a person: its message, or the terraform command and its output. */
export function describeOpFailure(failure: OpFailure): string {
  return failure.type === 'terraform' ? `terraform ${failure.command}: ${failure.stderrTail}` : failure.message;
}

const Output = {
  stdout: z.string().max(8_000_000),
  stderr: z.string().max(8_000_000),
  exitCode: z.number().int(),
  durationMs: z.number().nonnegative(),
  truncated: z.boolean(),
  cpuMs: z.number().nonnegative().optional(),
};

const TerraformVersion = z.strictObject({
  flavor: z.enum(['terraform', 'tofu']),
  version: z.string().max(100),
  path: z.string().max(4_096),
});

const failed = z.strictObject({ ok: z.literal(false), failure: OpFailure });

export const OpResults = {
  plan: z.discriminatedUnion('ok', [
    z.strictObject({
      ok: z.literal(true),
      ...Output,
      hasChanges: z.boolean(),
      initRan: z.boolean(),
      version: TerraformVersion,
    }),
    failed,
  ]),
  state_pull: z.discriminatedUnion('ok', [z.strictObject({ ok: z.literal(true) }), failed]),
  apply: z.discriminatedUnion('ok', [z.strictObject({ ok: z.literal(true), ...Output }), failed]),
  // The answer is read strictly where it is used (services/remediation/codify-answer.ts), as any worker's answer is.
  codify: z.discriminatedUnion('ok', [z.strictObject({ ok: z.literal(true), answer: z.unknown() }), failed]),
  // Each event is read strictly where it is used (services/pools/history-on-agent.ts), as a module could write it.
  cloudtrail: z.discriminatedUnion('ok', [
    z.strictObject({
      ok: z.literal(true),
      events: z.array(z.unknown()).max(5_000),
      unreadable: z
        .array(z.strictObject({ eventId: z.string().max(200).optional(), reason: z.string().max(500) }))
        .max(5_000),
      truncated: z.boolean(),
    }),
    failed,
  ]),
} as const;
export type PlanOpResult = z.infer<typeof OpResults.plan>;
export type ApplyOpResult = z.infer<typeof OpResults.apply>;
export type StatePullOpResult = z.infer<typeof OpResults.state_pull>;

/** The files an op's worker may upload, per kind: anything else is refused. */
export const OP_OUTPUT_FILES = {
  plan: ['plan', 'plan_json'],
  state_pull: ['state'],
  apply: [],
  codify: [],
  cloudtrail: [],
} as const;
