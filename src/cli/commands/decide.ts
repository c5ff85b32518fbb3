import { parseArgs } from 'node:util';
import {
  type ApplyOutcome,
  type CliDecisions,
  type DecisionRefusal,
  openCliDecisions,
} from '../../app/cli-decisions.js';
import { loadConfig } from '../../config/load.js';
import { describeMissing } from '../../domain/approvals/evaluate.js';
import { isSet } from '../../config/environment.js';
import { cliActor } from '../cli-actor.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import { UsageError } from '../io.js';
import { logSettings } from '../log-options.js';
import { terminalSafe } from '../render/policy-report.js';

const SLACK_USER = /^[UW][A-Z0-9]{2,}$/;

/** `driftgate approve RUN --as USER`: one approval, through the use case Slack's Approve button calls. */
export async function approveCommand(args: string[], io: CliIo): Promise<number> {
  return await decide('approve', args, io, async (decisions, runId, userId, say) => {
    const { outcome, applied } = await decisions.approve(runId, userId);
    if (outcome.status === 'refused') return refused(outcome, io);
    const { have, need, missing } = outcome.progress;
    const stack = outcome.run.stack;
    if (outcome.status === 'recorded') {
      say(
        `${stack}: approval of run ${runId} by ${userId} recorded (${have}/${need})${missing?.length ? `; still needs ${describeMissing(missing)}` : ''}`,
      );
      return 0;
    }
    say(`${stack}: run ${runId} approved (${have}/${need}); applied in this process`);
    return applied ? applyResult(stack, applied, say) : 1;
  });
}

/** `driftgate reject RUN --as USER [--reason TEXT]`: through the use case Slack's Reject modal calls. */
export async function rejectCommand(args: string[], io: CliIo): Promise<number> {
  return await decide('reject', args, io, async (decisions, runId, userId, say, reason) => {
    const outcome = await decisions.reject(runId, userId, reason);
    if (outcome.status === 'refused') return refused(outcome, io);
    const snooze = outcome.snoozedUntil
      ? `; the same drift is not alerted again before ${outcome.snoozedUntil.toISOString()}`
      : '';
    say(`${outcome.run.stack}: run ${runId} rejected by ${userId}${snooze}`);
    return 0;
  });
}

type Say = (line: string) => void;

async function decide(
  verb: 'approve' | 'reject',
  args: string[],
  io: CliIo,
  act: (decisions: CliDecisions, runId: string, userId: string, say: Say, reason?: string) => Promise<number>,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      as: { type: 'string' },
      config: { type: 'string', short: 'c' },
      ...(verb === 'reject' ? { reason: { type: 'string' as const } } : {}),
    },
  });
  if (positionals.length !== 1) throw new UsageError(`name exactly one run to ${verb} (its id, r_…)`);
  const userId = values.as;
  if (!userId) throw new UsageError(`--as USER is required: the approver's Slack user id, such as U024BE7LH`);
  if (!SLACK_USER.test(userId))
    throw new UsageError(`--as "${userId}" is not a Slack user id: approvers are named by ids such as U024BE7LH`);
  const config = await loadConfig(configOptions(values.config, io));
  const decisions = await openCliDecisions(config, {
    env: io.env,
    logDestination: io.stderr,
    log: logSettings(io.log, config.log.level, 'human'),
    via: cliActor(io),
    verb,
  });
  const say: Say = (line) => io.stdout.write(`${line}\n`);
  try {
    const reason = typeof values.reason === 'string' ? values.reason : undefined;
    const code = await act(decisions, positionals[0]!, userId, say, reason);
    for (const stack of decisions.checksAsked())
      say(`${stack}: its plan expired; a fresh one is needed: driftgate check ${stack} (or serve's next check)`);
    return code;
  } finally {
    await decisions.close();
  }
}

function refused(refusal: DecisionRefusal, io: CliIo): number {
  io.stderr.write(`refused: ${refusal.message}\n`);
  if (refusal.reason === 'slack_unavailable' && !isSet(io.env, 'SLACK_BOT_TOKEN'))
    io.stderr.write(
      'The approver groups of this stack name Slack user groups: set SLACK_BOT_TOKEN so their members can be read.\n',
    );
  return 1;
}

function applyResult(stack: string, applied: ApplyOutcome, say: Say): number {
  switch (applied.status) {
    case 'applied': {
      const summary = applied.output.split('\n').find((l) => l.includes('Apply complete!'));
      say(`${stack}: applied run ${applied.run.id}${summary ? `: ${terminalSafe(summary.trim())}` : ''}`);
      return 0;
    }
    case 'apply_failed':
      say(`${stack}: apply of run ${applied.run.id} failed: ${terminalSafe(applied.error)}`);
      return 1;
    case 'interrupted':
      say(`${stack}: apply of run ${applied.run.id} was interrupted: ${terminalSafe(applied.reason)}`);
      return 1;
    case 'refused':
      say(`${stack}: not applied: ${terminalSafe(applied.reason)}`);
      return 1;
  }
}
