import type { App } from '@slack/bolt';
import type { SlackAppDeps } from '../../app/deps.js';

/** Registered by the events listener. */
export function register(_app: App, _deps: SlackAppDeps): void {}
