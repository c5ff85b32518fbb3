/** GitHub webhook deliveries as GitHub sends them, for driftgate's `/github/webhook`. */
import { Webhooks } from '@octokit/webhooks';

let deliveries = 0;

export interface Delivery {
  id: string;
  status: number;
  body: Record<string, unknown>;
}

/** POSTs a delivery: JSON, signed with `secret` (or carrying `signature` as given), with its event headers. */
export async function deliverWebhook(
  base: string,
  secret: string,
  event: string | undefined,
  body: string,
  signature?: string,
): Promise<Delivery> {
  const id = `delivery-${++deliveries}`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-delivery': id,
    'x-hub-signature-256': signature ?? (await new Webhooks({ secret }).sign(body)),
    ...(event ? { 'x-github-event': event } : {}),
  };
  const res = await fetch(`${base}/github/webhook`, { method: 'POST', headers, body });
  return { id, status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A `pull_request` delivery of a merged PR into `base`. */
export const mergedPullRequest = (repository: string, base: string, number = 7, head = 'driftgate/fix') =>
  JSON.stringify({
    action: 'closed',
    number,
    pull_request: { number, merged: true, base: { ref: base }, head: { ref: head } },
    repository: { full_name: repository },
  });
