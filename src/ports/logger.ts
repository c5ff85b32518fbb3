/**
 * What driftgate logs through (pino's shape: fields first, then the message). Each user asks only for the
 * levels it writes (`Pick<Logger, 'warn'>`), so a test hands in as little as it checks.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
