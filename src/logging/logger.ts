import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export interface CreateLoggerOptions {
  level: string;
  /** Where lines go; stdout when absent. */
  destination?: DestinationStream | NodeJS.WritableStream;
  /**
   * Masks secrets in a line. Called on every write (never cached), so secrets learned after the logger
   * was made, from later plans, are masked too.
   */
  redact: (line: string) => string;
}

/**
 * A pino logger whose every written line passes through `redact`. Terraform output quoted in logs may hold
 * sensitive values; masking at the stream is the one place no call site can forget.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const { redact } = options;
  const opts = {
    level: options.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: { streamWrite: (line: string) => redactLine(line, redact) },
  };
  return options.destination ? pino(opts, options.destination as DestinationStream) : pino(opts);
}

/**
 * pino hands over serialised JSON, where a secret holding `"` or `\` or a newline is escaped and would
 * not match the raw secret. So string values are masked in the parsed record first, then the whole line
 * (for secrets in keys or anything else).
 */
export function redactLine(line: string, redact: (text: string) => string): string {
  const newline = line.endsWith('\n') ? '\n' : '';
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return redact(line);
  }
  return redact(JSON.stringify(redactStrings(record, redact))) + newline;
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
