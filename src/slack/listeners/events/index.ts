import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../slack-deps.js';
import { publishHome } from '../../home-tab.js';
import { HomeOpened, payloadProblem } from '../../payloads.js';

/** `app_home_opened`: Bolt acks events itself; the Home tab is built and published after, as a job. */
export function register(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', async ({ event }) => {
    const opened = HomeOpened.safeParse(event);
    if (!opened.success) {
      deps.logger.warn({ problem: payloadProblem(opened.error) }, 'malformed app_home_opened event; ignored');
      return;
    }
    const { user, tab } = opened.data;
    // The Messages tab opens this event too; only the Home tab has a view to publish.
    if (tab !== undefined && tab !== 'home') return;
    deps.jobs.run('app_home_opened', () => publishHome(deps, user));
  });
}
