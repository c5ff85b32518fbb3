/**
 * Remediation PRs -> the run's message and thread: the PR's link on the message and in its thread (opened
 * or already open), a merged PR in the thread, and what could not be codified.
 */
import type { EventBus } from '../../services/runtime/event-bus.js';
import {
  renderNothingToCodify,
  renderRemediationMerged,
  renderRemediationOpened,
} from '../blocks/render-remediation.js';
import type { RunMessages } from './run-messages.js';

export function followRemediations(bus: EventBus, messages: RunMessages): (() => void)[] {
  return [
    bus.on('remediation_answered', async ({ run, actor, result }) => {
      switch (result.status) {
        case 'opened':
        case 'existing':
          await messages.update(run, { kind: 'awaiting' });
          await messages.reply(run, renderRemediationOpened(result.record, actor, result.status === 'existing'));
          return;
        case 'merged':
          await messages.reply(run, renderRemediationMerged(result.record, actor));
          return;
        case 'nothing_to_codify':
          await messages.reply(run, renderNothingToCodify(run.stack, result.skipped));
          return;
      }
    }),
  ];
}
