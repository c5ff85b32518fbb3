import type { RequestListener } from 'node:http';
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import { errorMessage } from '../../domain/errors.js';
import { describeNetworkError, networkCause, unreachableFix } from '../../domain/network-cause.js';
import type { Logger } from '../../logging/logger.js';
import { boltLogger } from './bolt-logger.js';
import { slackHost, type SlackSettings } from '../../config/slack-settings.js';

export interface SlackRuntime {
  app: App;
  /** HTTP mode: the listener for `/slack/events` (signature and timestamp checked by Bolt). */
  listener?: RequestListener;
  isReady(): boolean;
  /** Verifies the token (Bolt's `auth.test`), retrying with backoff until it works or `stop()`. */
  connect(): Promise<void>;
  stop(): Promise<void>;
}

export interface SlackRuntimeOptions {
  settings: SlackSettings;
  logger: Logger;
  /** Registers the listeners (commands, actions, views, events). */
  register: (app: App) => void;
  retry?: { baseMs: number; maxMs: number };
  onConnectError?: (err: unknown) => void;
}

/**
 * The Bolt app. Its initialisation is deferred: Bolt calls `auth.test` at start-up and, if Slack is down,
 * would crash the process on an unhandled rejection. Here a failed `auth.test` is logged and retried, and
 * the caller reports "not ready" meanwhile.
 */
export function createSlackRuntime(options: SlackRuntimeOptions): SlackRuntime {
  const { settings, logger } = options;
  const log = boltLogger(logger);
  // No retries inside the client: connect() retries auth.test with its own backoff, and the outbox retries sends.
  const clientOptions = { retryConfig: { retries: 0 }, ...(settings.apiUrl ? { slackApiUrl: settings.apiUrl } : {}) };
  let receiver: HTTPReceiver | SocketModeReceiver;
  if (settings.mode === 'http') {
    receiver = new HTTPReceiver({
      signingSecret: settings.signingSecret,
      endpoints: '/slack/events',
      // Acknowledge first, work after: handlers ack within Slack's 3 s and continue in the background.
      processBeforeResponse: false,
      logger: log,
    });
  } else {
    // apps.connections.open goes to SLACK_API_URL too (GovSlack, tests); its socket URL comes from there.
    const installerOptions = settings.apiUrl ? { clientOptions: { slackApiUrl: settings.apiUrl } } : {};
    receiver = new SocketModeReceiver({ appToken: settings.appToken, logger: log, installerOptions });
  }
  const app = new App({ token: settings.botToken, receiver, deferInitialization: true, clientOptions, logger: log });
  options.register(app);
  app.error(async (err) => {
    logger.error({ err: errorMessage(err) }, 'slack handler failed');
  });

  let ready = false;
  let stopped = false;
  let wake: (() => void) | undefined;
  const retry = options.retry ?? { baseMs: 1000, maxMs: 60_000 };

  return {
    app,
    ...(receiver instanceof HTTPReceiver ? { listener: receiver.requestListener } : {}),
    isReady: () => ready,
    async connect() {
      for (let attempt = 0; !stopped && !ready; attempt++) {
        try {
          await app.init();
          if (settings.mode === 'socket') await app.start();
          ready = true;
          logger.info({ mode: settings.mode }, 'slack connected');
        } catch (err) {
          options.onConnectError?.(err);
          const delay = Math.min(retry.maxMs, retry.baseMs * 2 ** attempt) * (0.5 + Math.random() / 2);
          // The client wraps fetch's error (`original`), whose causes say why: DNS, a refused connection, a proxy.
          const original = (err as { original?: unknown }).original;
          const cause = original ? networkCause(original) : undefined;
          logger.warn(
            {
              err: original ? `could not reach Slack: ${describeNetworkError(original)}` : errorMessage(err),
              ...(cause ? { hint: unreachableFix(slackHost(settings)) } : {}),
              retryInMs: Math.round(delay),
            },
            'slack not reachable; retrying',
          );
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, delay);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
      }
    },
    async stop() {
      stopped = true;
      wake?.();
      if (ready && settings.mode === 'socket') await app.stop();
      ready = false;
    },
  };
}
