import { pino, type DestinationStream, type Logger } from 'pino';
import { humanLine } from './human-line.js';

export type { Logger };

/** Masks secrets in a text: `stack`'s when the line names one, every stack's otherwise. */
export type LineRedact = (text: string, stack?: string) => string;

export interface CreateLoggerOptions {
  level: string;
  /** Where lines go; stdout when absent. */
  destination?: DestinationStream | NodeJS.WritableStream;
  /**
   * Masks secrets in a line. Called on every write (never cached), so secrets learned after the logger
   * was made, from later plans, are masked too.
   */
  redact: LineRedact;
  /** `json` (one pino record a line, for machines: `serve`) or `human` (for a terminal); default json. */
  format?: 'json' | 'human';
}

/**
 * A pino logger whose every written line passes through `redact`. Terraform output quoted in logs may hold
 * sensitive values; masking at the stream is the one place no call site can forget.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const { redact } = options;
  const human = options.format === 'human';
  const opts = {
    level: options.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: {
      streamWrite: (line: string) => (human ? humanLine(redactLine(line, redact)) : redactLine(line, redact)),
    },
  };
  return options.destination ? pino(opts, options.destination as DestinationStream) : pino(opts);
}

/**
 * pino hands over serialised JSON, where a secret holding `"` or `\` or a newline is escaped and would
 * not match the raw secret. So string values are masked in the parsed record, with the secrets of the
 * stack the record names (`stack`). Keys are driftgate's own names, never masked: a secret `level` must
 * not turn `"level"` into a placeholder.
 */
export function redactLine(line: string, redact: LineRedact): string {
  const newline = line.endsWith('\n') ? '\n' : '';
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return redact(line);
  }
  const stack =
    typeof record === 'object' && record !== null && typeof (record as { stack?: unknown }).stack === 'string'
      ? (record as { stack: string }).stack
      : undefined;
  return JSON.stringify(redactStrings(record, (text) => redact(text, stack))) + newline;
}

function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, redact));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, {
        value: redactStrings(v, redact),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
