import picomatch from 'picomatch';
import { parseDuration } from '../../../domain/duration.js';
import { matchStacks } from '../../../domain/match-stacks.js';
import { suggest } from '../../../domain/suggest.js';

export type DriftCommand =
  | { kind: 'status' }
  | { kind: 'help' }
  | { kind: 'events' }
  /** `byPattern`: chosen by `all` or a glob rather than by name, so only stacks the person may see are checked. */
  | { kind: 'check'; stacks: string[]; byPattern?: true }
  | { kind: 'show'; stack: string }
  | { kind: 'silence'; stack: string; durationMs: number; reason?: string }
  | { kind: 'unsilence'; stack: string }
  | { kind: 'unlock'; stack: string }
  | { kind: 'error'; message: string; suggestions: string[] };

const SUBCOMMANDS = ['status', 'check', 'show', 'silence', 'unsilence', 'unlock', 'events', 'help'] as const;

const usage: Record<string, string> = {
  check: '/drift check <stack|glob|all>',
  show: '/drift show <stack>',
  silence: '/drift silence <stack> <duration> [reason]',
  unsilence: '/drift unsilence <stack>',
  unlock: '/drift unlock <stack>',
};

/** `/drift …` text -> what to do, or an error that says what was wrong with the closest matches. */
export function parseDriftCommand(text: string, stackNames: readonly string[]): DriftCommand {
  const [sub = 'status', ...args] = text.trim().split(/\s+/).filter(Boolean);
  const name = sub.toLowerCase();
  const fail = (message: string, suggestions: string[] = []): DriftCommand => ({ kind: 'error', message, suggestions });
  const oneStack = (arg: string | undefined): string | DriftCommand => {
    if (!arg) return fail(`usage: ${usage[name]}`);
    if (stackNames.includes(arg)) return arg;
    return fail(`no stack named \`${arg}\``, suggest(arg, [...stackNames]));
  };

  switch (name) {
    case 'status':
    case 'help':
    case 'events':
      return { kind: name };
    case 'check': {
      if (args.length === 0) return fail(`usage: ${usage.check}`);
      if (args.length === 1 && args[0] === 'all') return { kind: 'check', stacks: [...stackNames], byPattern: true };
      const match = matchStacks(stackNames, args);
      const byPattern = args.some((arg) => picomatch.scan(arg).isGlob);
      return match.ok
        ? { kind: 'check', stacks: match.names, ...(byPattern ? { byPattern } : {}) }
        : fail(
            `no stack matches \`${match.pattern}\`${match.prefixes.length ? ` (the stacks are ${match.prefixes.some((p) => p.endsWith('/')) ? 'under ' : ''}${match.prefixes.map((p) => `\`${p}\``).join(', ')})` : ''}`,
            match.suggestions,
          );
    }
    case 'show':
    case 'unsilence':
    case 'unlock': {
      const stack = oneStack(args[0]);
      return typeof stack === 'string' ? { kind: name, stack } : stack;
    }
    case 'silence': {
      const stack = oneStack(args[0]);
      if (typeof stack !== 'string') return stack;
      const durationMs = args[1] ? parseDuration(args[1]) : undefined;
      if (!durationMs)
        return fail(`\`${args[1] ?? ''}\` is not a duration (use e.g. 2h, 1d, 30m); usage: ${usage.silence}`);
      const reason = args.slice(2).join(' ');
      return { kind: 'silence', stack, durationMs, ...(reason ? { reason } : {}) };
    }
    default:
      return fail(`unknown subcommand \`${sub}\``, suggest(name, [...SUBCOMMANDS]));
  }
}
