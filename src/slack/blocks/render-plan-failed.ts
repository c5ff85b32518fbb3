/** A plan that failed: what went wrong and the end of terraform's stderr (already masked by the runner). */
import type { Run } from '../../domain/run/model.js';
import { codeBlockTail, code, escapeMrkdwn, truncate } from './escape.js';
import { context, header, section, slackDate, stackLabel, type SlackMessage, type StackRef } from './message.js';

export interface PlanFailedInput {
  stack: StackRef;
  run: Run;
  error: string;
  stderrTail: string;
}

/** Section text is 3000 characters; the tail gets what the error line leaves. */
const STDERR_BLOCK_CHARS = 2900;

export function renderPlanFailed(input: PlanFailedInput): SlackMessage {
  const { stack, run } = input;
  const error = truncate(escapeMrkdwn(input.error.trim() || 'terraform failed'), 2500);
  return {
    text: truncate(`Plan failed for ${escapeMrkdwn(stack.name)}: ${error}`, 3000),
    blocks: [
      header(`Plan failed for ${stack.name}`),
      section(`:x: Could not plan ${stackLabel(stack)}: ${error}`),
      context([
        `Run ${code(run.id)}`,
        slackDate(run.createdAt),
        run.commitSha ? `Commit ${code(run.commitSha.slice(0, 10))}` : '',
      ]),
      section(codeBlockTail(input.stderrTail, STDERR_BLOCK_CHARS)),
    ],
  };
}
