import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Webhooks } from '@octokit/webhooks';
import type { Stack } from '../../domain/stack.js';
import { errorMessage } from '../../domain/errors.js';
import { readBody } from '../read-body.js';
import { replyJson as reply } from '../reply.js';
import { branchMoved, stacksOnBranch } from './branch-moved.js';
import type { Logger } from '../../ports/logger.js';

export const GITHUB_WEBHOOK_PATH = '/github/webhook';

/** GitHub caps payloads at 25 MB; pushes and pull requests are far below this. */
const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
const JSON_CONTENT_TYPE = /^\s*application\/json\s*(;|$)/i;

export interface GithubWebhookOptions {
  /** GITHUB_WEBHOOK_SECRET: the webhook's secret, which signs every delivery (X-Hub-Signature-256). */
  secret: string;
  /** The stacks now: serve's re-discovery may have found others since the start. */
  stacks(): readonly Stack[];
  /** Queues a check of the stack (the scheduler's `request`); settles when it is done. */
  requestCheck(stackName: string): Promise<{ status: string }>;
  logger: Logger;
  maxBodyBytes?: number;
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * `POST /github/webhook`: a signed push or merged pull request re-checks the stacks of that branch, so
 * drift a remediation PR codified is reported resolved once the plan is clean. Answers 202 before any
 * check is queued; nothing happens for a request whose signature does not match.
 */
export function createGithubWebhookListener(options: GithubWebhookOptions): RequestListener {
  const { logger } = options;
  const webhooks = new Webhooks({ secret: options.secret });
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST')
      return reply(res, 405, { error: 'method not allowed: GitHub webhooks are POSTed' }, { allow: 'POST' });
    if (!JSON_CONTENT_TYPE.test(req.headers['content-type'] ?? '')) {
      return reply(res, 415, {
        error: 'content type must be application/json (set it in the webhook settings on GitHub)',
      });
    }
    const body = await readBody(req, limit);
    if (!body.ok) return reply(res, 413, { error: `body larger than ${limit} bytes` }, { connection: 'close' });
    const signature = header(req, 'x-hub-signature-256');
    if (!signature)
      return reply(res, 401, { error: 'missing X-Hub-Signature-256: give the webhook a secret on GitHub' });
    if (body.text === '') return reply(res, 400, { error: 'empty body' });
    if (!(await webhooks.verify(body.text, signature))) return reply(res, 401, { error: 'signature does not match' });

    const event = header(req, 'x-github-event');
    const delivery = header(req, 'x-github-delivery');
    if (!event || !delivery)
      return reply(res, 400, { error: `missing header ${!event ? 'X-GitHub-Event' : 'X-GitHub-Delivery'}` });
    let payload: unknown;
    try {
      payload = JSON.parse(body.text);
    } catch {
      return reply(res, 400, { error: 'body is not JSON' });
    }
    if (event === 'ping') return reply(res, 200, { ok: true });
    reply(res, 202, { accepted: true });
    dispatch(event, delivery, payload);
  };

  function dispatch(event: string, delivery: string, payload: unknown): void {
    const result = branchMoved(event, payload);
    if ('ignored' in result) return logger.debug({ delivery, event, reason: result.ignored }, 'github webhook ignored');
    const stacks = stacksOnBranch(options.stacks(), result.moved);
    if (stacks.length === 0) {
      return logger.debug(
        { delivery, event, ...result.moved },
        'github webhook ignored: no stack comes from that branch',
      );
    }
    logger.info(
      { delivery, event, ...result.moved, stacks: stacks.map((s) => s.name) },
      'github webhook: checking stacks',
    );
    for (const stack of stacks) {
      options.requestCheck(stack.name).then(
        (outcome) => logger.info({ delivery, stack: stack.name, status: outcome.status }, 'webhook check finished'),
        (err: unknown) =>
          logger.warn({ delivery, stack: stack.name, error: errorMessage(err) }, 'webhook check not run'),
      );
    }
  }

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ err }, 'github webhook failed');
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
      else res.end();
    });
  };
}
