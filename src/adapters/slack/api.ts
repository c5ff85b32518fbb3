import { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Logger } from '../../logging/logger.js';
import { SlackApiError, type SlackApi } from '../../ports/slack-api.js';
import { httpError, toSlackApiError } from './api-error.js';
import { boltLogger } from './bolt-logger.js';

export interface SlackApiOptions {
  token: string;
  /** SLACK_API_URL; Slack's own when absent. Must end with `/`. */
  apiUrl?: string;
  logger: Logger;
  /** Per-request timeout: a hung connection must not stall the outbox forever. */
  timeoutMs?: number;
}

const UploadUrl = z.object({ upload_url: z.string().url(), file_id: z.string().min(1) });

export function createSlackApi(options: SlackApiOptions): SlackApi {
  const { token } = options;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const mask = (text: string) => (token ? text.split(token).join('[token]') : text);
  const client = new WebClient(token, {
    slackApiUrl: options.apiUrl ?? 'https://slack.com/api/',
    // The client's debug lines quote whole request bodies (plan text, user names): keep them out of logs.
    logger: { ...boltLogger(options.logger), debug: () => undefined },
    // The outbox owns retries (with its own backoff and persistence); a client retrying inside a call
    // would hold the worker for minutes and hide 429s from it.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: timeoutMs,
  });

  async function call(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return (await client.apiCall(method, args)) as unknown as Record<string, unknown>;
    } catch (err) {
      throw toSlackApiError(method, err, mask);
    }
  }

  async function postBytes(uploadUrl: string, content: string): Promise<void> {
    let status: number;
    try {
      // No Authorization header: the upload URL is pre-signed, and the token must not go to any other host.
      const res = await fetch(uploadUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.from(content, 'utf8'),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch (err) {
      throw toSlackApiError('files.upload', err, mask);
    }
    if (status !== 200) throw httpError('files.upload', status);
  }

  return {
    call,
    async uploadFile(args) {
      const bytes = Buffer.byteLength(args.content, 'utf8');
      const answer = UploadUrl.safeParse(
        await call('files.getUploadURLExternal', { filename: args.filename, length: bytes }),
      );
      if (!answer.success)
        throw new SlackApiError('files.getUploadURLExternal', 'answer without upload_url or file_id', false);
      await postBytes(answer.data.upload_url, args.content);
      await call('files.completeUploadExternal', {
        files: [{ id: answer.data.file_id, ...(args.title ? { title: args.title } : {}) }],
        channel_id: args.channel,
        ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
      });
    },
  };
}
