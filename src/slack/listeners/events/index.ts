import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../slack-deps.js';
import { publishHome } from '../../home-tab.js';
import { HomeOpened } from '../../payloads.js';
import { readPayload } from '../acked-payload.js';

/** `app_home_opened`: Bolt acks events itself; the Home tab is built and published after, as a job. */
export function register(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', async ({ event }) => {
    const opened = readPayload(deps, HomeOpened, event, 'app_home_opened event');
    if (!opened) return;
    const { user, tab } = opened;
    // The Messages tab opens this event too; only the Home tab has a view to publish.
    if (tab !== undefined && tab !== 'home') return;
    deps.jobs.run('app_home_opened', () => publishHome(deps, user));
  });
}
