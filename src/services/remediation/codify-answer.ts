/**
 * A codify job's answer: sent by the worker that ran the job (the agent API), read by the control plane
 * that commits it. The worker ran the stack's modules, so the answer is read as what a
 * module could have written: parsed strictly, its texts made plain one-line text (they reach the PR body),
 * and nothing in it meant for the PR's title or body is taken. Its file paths are checked where the
 * commit is made (openRemediationPr), for this answer and for this process's own codify alike.
 */
import { z } from 'zod';
import { RemediationAnswerRefusedError } from '../../domain/errors.js';
import { SKIP_CODES } from '../../domain/remediation/plan-remediation.js';
import { shownLines, shownName, shownProse } from '../../domain/remediation/worker-text.js';
import type { Codified } from './codify-drift.js';

/** An address, an attribute, a path segment: shown in code spans, so one line, and short. */
const Name = z.string().transform((s) => shownName(s, 300));
const Prose = (max: number) => z.string().transform((s) => shownProse(s, max));

const Skip = z.strictObject({
  address: Name,
  attribute: Name.optional(),
  code: z.enum(SKIP_CODES),
  reason: Prose(500),
  guidance: Prose(2000),
});

const Edit = z.strictObject({
  // Checked with the files' paths, not rewritten: a path cut or cleaned would not be the one refused.
  file: z.string(),
  address: Name,
  path: z.array(z.union([Name, z.number().int().nonnegative()])).max(64),
  value: z.unknown(),
  before: z.unknown(),
});

/** What the worker's codify job leaves as its result. */
const CodifyResult = z.discriminatedUnion('status', [
  z.strictObject({
    status: z.literal('codified'),
    plan: z.strictObject({
      edits: z.array(Edit),
      skipped: z.array(Skip),
      files: z.array(z.strictObject({ path: z.string(), text: z.string() })),
    }),
    // Workers before this check wrote the PR's text too; the control plane writes its own.
    text: z.unknown().optional(),
  }),
  z.strictObject({ status: z.literal('nothing_to_codify'), skipped: z.array(Skip) }),
  // Told in the Slack thread: a terraform error's tail has lines, and room in a message.
  z.strictObject({ status: z.literal('failed'), error: z.string().transform((s) => shownLines(s, 2500)) }),
]);

export type CodifyAnswerResult = Codified | { status: 'failed'; error: string };

/** A worker's codify result (the agent API's codify job), read strictly. */
export function parseCodifyResult(result: unknown, pool: string): CodifyAnswerResult {
  const parsed = CodifyResult.safeParse(result);
  if (!parsed.success) throw refusedAnswer(parsed.error, pool);
  return codifiedOf(parsed.data);
}

function refusedAnswer(error: z.ZodError, pool: string): RemediationAnswerRefusedError {
  const where = [...new Set(error.issues.map((i) => i.path.join('.') || '(the answer)'))].slice(0, 5);
  return new RemediationAnswerRefusedError(
    `the answer of pool ${pool}'s worker is not what a driftgate worker writes (at ${where.map((w) => shownName(w, 80)).join(', ')}), so nothing was committed. A worker of an older or newer version, or a tampered one, writes this: see \`driftgate workers\` and the audit (remediation_answer_refused).`,
  );
}

function codifiedOf(result: z.infer<typeof CodifyResult>): CodifyAnswerResult {
  if (result.status !== 'codified') return result;
  return { status: 'codified', plan: result.plan as Extract<Codified, { status: 'codified' }>['plan'] };
}
