import { z } from 'zod';

/**
 * What a worker asks of the terraform container beside it, over a Unix socket in the pod's shared
 * emptyDir: one terraform command. No program name: the container runs only its own binary.
 */
export const ContainerRunRequest = z.strictObject({
  args: z.array(z.string().max(65_536)).max(1_000),
  /** Absolute, and inside the shared dir once links are resolved. */
  cwd: z.string().startsWith('/', 'an absolute path'),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'), z.string()),
  /** 0: none. At most a week. */
  timeoutMs: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3_600_000),
  killGraceMs: z.number().int().min(0).max(3_600_000),
});
export type ContainerRunRequest = z.infer<typeof ContainerRunRequest>;

/** One line of the answer (NDJSON): output as it comes, then how the process ended. */
export const ContainerRunLine = z.union([
  z.strictObject({ stream: z.enum(['stdout', 'stderr']), data: z.base64() }),
  z.strictObject({
    end: z.strictObject({
      exitCode: z.number().int().optional(),
      durationMs: z.number().min(0),
      timedOut: z.boolean(),
      canceled: z.boolean(),
      spawnError: z.string().optional(),
    }),
  }),
]);
export type ContainerRunLine = z.infer<typeof ContainerRunLine>;

export const CONTAINER_RUN_PATH = '/run';
