import { ExternalServiceError } from '../domain/errors.js';

export interface UploadFileArgs {
  channel: string;
  threadTs?: string;
  filename: string;
  title?: string;
  content: string;
}

/** The Slack Web API as driftgate uses it. Every failure is a SlackApiError (an ExternalServiceError). */
export interface SlackApi {
  /** Calls a Web API method; resolves to Slack's body when `ok` is true. */
  call(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Shares a text file in a channel (or thread): the v2 flow of upload URL, bytes, complete. */
  uploadFile(args: UploadFileArgs): Promise<void>;
}

/** A failed Slack Web API call, with what the outbox needs to decide between retrying and giving up. */
export class SlackApiError extends ExternalServiceError {
  constructor(
    readonly method: string,
    message: string,
    retriable: boolean,
    readonly details: {
      /** Slack's `error` code from an `ok: false` answer, e.g. `invalid_blocks`. */
      slackError?: string;
      /** HTTP status when Slack answered with one other than 200. */
      status?: number;
      /** From a 429's Retry-After: wait at least this long. */
      retryAfterMs?: number;
      /** Slack was not reached at all: the network's code (ENOTFOUND, ECONNREFUSED, ETIMEDOUT…), not Slack's answer. */
      network?: string;
    } = {},
  ) {
    super('slack', `${method} failed: ${message}`, retriable);
  }
}
