import { announcementEvent } from '../../domain/events.js';
import { errorMessage } from '../../domain/errors.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { loadAnalysis, loadPolicy } from '../check/stored-analysis.js';

/**
 * At start, after every subscriber listens: publishes the outcomes an earlier process recorded but died
 * before announcing (a kill -9 between the drift being recorded and its alert being decided). Subscribers
 * are idempotent per run, so an outcome that was half announced (its page out, its alert not) is told
 * where it is missing, once. Returns the runs announced.
 */
export async function replayAnnouncements(
  deps: Pick<ServiceDeps, 'store' | 'artifacts' | 'bus' | 'logger'>,
): Promise<string[]> {
  const { store, logger } = deps;
  const announced: string[] = [];
  for (const { run, announcement } of await store.listUnannounced()) {
    const where = { runId: run.id, stack: run.stack, event: announcement.type };
    try {
      const analysis = await loadAnalysis(deps, run.id);
      const event = announcementEvent(announcement, run, { analysis, policy: await loadPolicy(deps, run.id) });
      if (event) {
        logger.warn(where, 'outcome recorded by an earlier process was not announced; announcing it now');
        await deps.bus.publish(event);
        announced.push(run.id);
      } else logger.error(where, 'outcome left unannounced has no stored analysis to announce it from; dropped');
      await store.announced(run.id);
    } catch (err) {
      // Left for the next start: its analysis may be readable again (the artifact store was down).
      logger.error({ ...where, err: errorMessage(err) }, 'announcing a left-over outcome failed');
    }
  }
  return announced;
}
