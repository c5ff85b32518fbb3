import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../logging/logger.js';

/** Bolt's logger interface on top of ours, so Bolt's lines are masked and structured like the rest. */
export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  const text = (msg: unknown[]) =>
    msg.map((m) => (m instanceof Error ? m.message : typeof m === 'string' ? m : JSON.stringify(m))).join(' ');
  let level = LogLevel.INFO;
  return {
    // Bolt logs every request at debug, whole payloads included: format only when the line is written.
    debug: (...msg: unknown[]) => {
      if (child.isLevelEnabled('debug')) child.debug(text(msg));
    },
    info: (...msg: unknown[]) => child.info(text(msg)),
    warn: (...msg: unknown[]) => child.warn(text(msg)),
    error: (...msg: unknown[]) => child.error(text(msg)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
