import type { SlackConfig } from '../config/schema.js';
import type { MessageRef, SlackStore } from '../ports/slack-store.js';
import type { PageSlackLinks } from '../ports/outbox.js';
import { channelFor } from './routing.js';

export interface SlackLinksDeps {
  slack: SlackConfig;
  store: Pick<SlackStore, 'getMessage'>;
  /** `https://acme.slack.com/`, from `auth.test`; undefined until Slack has answered it. */
  workspaceUrl(): string | undefined;
}

/** Pages' links into Slack: a run's message once it is recorded and the workspace known, else its stack's channel. */
export function slackLinks(deps: SlackLinksDeps): PageSlackLinks {
  return {
    async messageLink(runId) {
      const ref = await deps.store.getMessage(runId);
      const workspace = ref && deps.workspaceUrl();
      return ref && workspace ? slackPermalink(workspace, ref) : undefined;
    },
    channelOf: (stack) => channelFor(deps.slack, { name: stack }),
  };
}

/** `<workspace>archives/<channel>/p<ts without its dot>`: the address Slack's "Copy link" gives a message. */
export function slackPermalink(workspaceUrl: string, ref: Pick<MessageRef, 'channel' | 'ts'>): string {
  const base = workspaceUrl.endsWith('/') ? workspaceUrl : `${workspaceUrl}/`;
  return `${base}archives/${encodeURIComponent(ref.channel)}/p${ref.ts.replace('.', '')}`;
}
