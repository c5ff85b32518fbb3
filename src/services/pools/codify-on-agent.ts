import { describeOpFailure, OpResults } from '../../domain/agent/op-messages.js';
import { RemediationUnavailableError } from '../../domain/errors.js';
import type { AgentOpRunner } from '../../ports/agent-ops.js';
import { loadArtifact } from '../runtime/artifacts.js';
import { parseCodifyResult } from '../remediation/codify-answer.js';
import type { Codify } from '../remediation/codify-drift.js';
import type { ServiceDeps } from '../runtime/deps.js';

export interface CodifyOnAgentOptions extends Pick<ServiceDeps, 'artifacts' | 'store'> {
  run: AgentOpRunner;
  /** How long a worker may take: the checkout, the provider schema, fmt and validate. */
  runMs: number;
}

/**
 * The control plane's codify with `runners.agent`: a job on the stack's pool that brings the run's plan
 * JSON to a worker, which writes the drift into the code at the run's commit and checks it with terraform.
 * Its answer is read as strictly as any worker's; the paths and the PR are the control plane's to check
 * and write (openRemediationPr).
 */
export function codifyOnAgent(options: CodifyOnAgentOptions): Codify {
  return async (stack, run, request) => {
    const planJson = await loadArtifact(options, run.id, 'plan_json');
    if (!planJson || !run.commitSha)
      throw new RemediationUnavailableError(
        `run ${run.id} has no stored plan JSON or commit any more: run /drift check ${stack.name} for a new plan`,
      );
    const op = await options.run(
      'codify',
      { pool: stack.pool, stack: stack.name },
      { commitSha: run.commitSha },
      {
        runMs: options.runMs,
        attempts: 2,
        files: [{ name: 'plan_json', body: planJson }],
        ...(request.signal ? { signal: request.signal } : {}),
      },
    );
    try {
      const result = OpResults.codify.parse(op.result);
      if (!result.ok)
        throw new RemediationUnavailableError(
          `the worker of pool ${stack.pool} could not write the remediation: ${describeOpFailure(result.failure)}`,
        );
      const answer = parseCodifyResult(result.answer, stack.pool);
      if (answer.status === 'failed') throw new RemediationUnavailableError(answer.error);
      return answer;
    } finally {
      await op.done();
    }
  };
}
