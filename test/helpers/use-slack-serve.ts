import { afterEach } from 'vitest';
import { startSlackServe, type SlackServe, type SlackServeOptions } from './slack-serve.js';

/** Per test: `serve(options)` starts driftgate serve with the Slack emulator; it is closed after the test. */
export function useSlackServe(): (options: SlackServeOptions) => Promise<SlackServe> {
  let current: SlackServe | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async (options) => (current = await startSlackServe(options));
}
