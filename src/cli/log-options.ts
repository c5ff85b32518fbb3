import { UsageError, type CliLogOptions } from './io.js';

const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
export type LogLevel = NonNullable<CliLogOptions['level']>;
export type LogFormat = NonNullable<CliLogOptions['format']>;

/** How a command logs: the format and level its logger is created with. */
export interface LogSettings {
  format: LogFormat;
  level: LogLevel;
}

/**
 * Takes `--log-format X`, `--log-level X` (or `=X`) and `--verbose` (the info level) out of a command's
 * arguments, before a `--`, so each command parses only its own options.
 */
export function takeLogOptions(args: string[]): { args: string[]; log: CliLogOptions } {
  const rest: string[] = [];
  const log: CliLogOptions = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (arg === '--verbose') {
      log.level ??= 'info';
      continue;
    }
    const [flag, inline] = arg.startsWith('--log-') && arg.includes('=') ? arg.split(/=(.*)/s) : [arg, undefined];
    if (flag !== '--log-format' && flag !== '--log-level') {
      rest.push(arg);
      continue;
    }
    const value = inline ?? args[++i];
    if (flag === '--log-format') {
      if (value !== 'human' && value !== 'json') throw new UsageError(`--log-format takes human or json`);
      log.format = value;
    } else {
      if (!LEVELS.includes(value as LogLevel)) throw new UsageError(`--log-level takes one of ${LEVELS.join(', ')}`);
      log.level = value as LogLevel; // over --verbose, wherever each stands
    }
  }
  return { args: rest, log };
}

/**
 * A command for a person (check, validate, demo…) logs to stderr in the human format and shows only
 * errors unless asked (`--verbose`, `--log-level`): its report already says what failed, once. A server
 * (`serve`) and `--log-format json` log JSON at the config's `log.level`, and so does
 * `serve --log-format human`. `--log-level` wins either way.
 */
export function logSettings(
  cli: CliLogOptions | undefined,
  configLevel: LogLevel,
  kind: 'human' | 'server',
): LogSettings {
  const format = cli?.format ?? (kind === 'server' ? 'json' : 'human');
  // A server's log is its only output: in either format it logs at the config's level.
  const level = cli?.level ?? (format === 'json' || kind === 'server' ? configLevel : stricter(configLevel, 'error'));
  return { format, level };
}

function stricter(a: LogLevel, b: LogLevel): LogLevel {
  return LEVELS.indexOf(a) >= LEVELS.indexOf(b) ? a : b;
}
