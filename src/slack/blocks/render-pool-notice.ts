/** The unserved-pool notice (runners: workers) and its follow-up once the pool is served again. */
import type { PoolNotice } from '../../domain/pool/pool-notices.js';
import { code, escapeMrkdwn } from './escape.js';
import { context, formatDuration, plural, section, slackDate, type SlackMessage } from './message.js';

export function renderPoolNotice(notice: PoolNotice): SlackMessage {
  const pool = escapeMrkdwn(notice.pool);
  const lasted = formatDuration(notice.at.getTime() - notice.since.getTime());
  if (notice.kind === 'unserved') {
    const { waiting, oldestWaitingSeconds } = notice.health;
    const oldest =
      oldestWaitingSeconds !== undefined ? ` (the oldest for ${formatDuration(oldestWaitingSeconds * 1000)})` : '';
    const text = `No worker for pool ${notice.pool} for ${lasted}`;
    return {
      text,
      blocks: [
        section(
          `:warning: *No worker for pool ${pool} for ${lasted}*: ${plural(waiting, 'job')} waiting${oldest}. Start ${code(`driftgate worker --pool ${notice.pool}`)}, or see why its workers stopped with ${code('driftgate workers')}.`,
        ),
        context([
          `Unserved since ${slackDate(notice.since)}. Told once; a follow-up says when the pool is served again.`,
        ]),
      ],
    };
  }
  const workers = notice.health?.liveWorkers ?? 0;
  const text = workers
    ? `Pool ${notice.pool} is served again: ${plural(workers, 'live worker')}`
    : `Nothing waits in pool ${notice.pool} any more`;
  const line = workers
    ? `:white_check_mark: *Pool ${pool} is served again*: ${plural(workers, 'live worker')}`
    : `:white_check_mark: *Nothing waits in pool ${pool} any more*, though it has no live worker`;
  return { text, blocks: [section(`${line} (it had none for ${lasted}).`)] };
}
