import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

/** Options every command takes (read by `main` before the command parses its own). */
export const GLOBAL_OPTIONS_USAGE = '[--verbose] [--log-format human|json] [--log-level LEVEL]';

/** What each option of a command means, for `driftgate COMMAND --help`. */
const OPTIONS: Record<string, [string, string][]> = {
  check: [
    ['STACK|GLOB', 'a stack name, or a glob such as prod/* (quote it in a shell)'],
    ['--all', 'every configured and discovered stack'],
    ['--json', 'one JSON document (format version 1) instead of the table and diffs'],
    ['--no-wait', 'fail at once on a stack another process holds, instead of waiting up to terraform.timeouts.lock'],
  ],
  serve: [
    ['--port N', 'port of /healthz, /readyz, /metrics and the Slack endpoint; default $PORT, else 3000'],
    ['--agent-port N', "the workers' agent API's port; default runners.agent.port (3001)"],
  ],
  worker: [
    ['--pool NAME', 'the worker pool whose jobs it takes (stacks choose one with pool:); default $DRIFTGATE_POOL'],
    ['--concurrency N', 'jobs run at once, 1 to 64; default defaults.concurrency'],
    ['--port N', 'port of /healthz, /readyz and /metrics; default $PORT, else 3000'],
  ],
  'terraform-runner': [
    ['--dir DIR', "the dir shared with its worker (runners.terraformContainer.dir): every command's cwd is inside it"],
    ['--socket PATH', 'the Unix socket its worker calls; default DIR/terraform.sock'],
    ['--binary NAME', 'terraform, tofu or a path: the only program it runs; default terraform'],
  ],
  baseline: [['--commit SHA', 'the commit to record, 7 to 64 hex characters; default the branch head']],
  migrate: [
    [
      '--to postgres',
      'also copy the SQLite store into the Postgres store the config names (store.url), which must be empty',
    ],
    ['--from FILE', 'the SQLite store to copy; default <dataDir>/driftgate.db'],
  ],
  pool: [
    ['token create POOL', "a new token for POOL's workers, shown once; several may live at once (rotation)"],
    ['token list [POOL]', "every token (or POOL's): id, name, created, last used, revoked"],
    ['token revoke POOL ID', 'refuses the token from its next request on'],
    ['--name NAME', 'what to call a new token; default POOL-<date>'],
    ['--json', 'one JSON document (format version 1)'],
  ],
  status: [
    ['STACK|GLOB', 'only these stacks; default every configured and discovered stack'],
    ['--json', 'one JSON document (format version 1; its shape is in docs/cli.md)'],
  ],
  approve: [
    ['RUN', 'the run id (r_…), as `driftgate status` and the Slack message show it'],
    ['--as USER', 'the approver deciding, by Slack user id (U…); the audit adds cli:<your OS user>'],
  ],
  reject: [
    ['RUN', 'the run id (r_…), as `driftgate status` and the Slack message show it'],
    ['--as USER', 'the approver deciding, by Slack user id (U…); the audit adds cli:<your OS user>'],
    ['--reason TEXT', 'why, kept in the audit log and shown on the Slack message'],
  ],
  workers: [['--json', 'one JSON document (format version 1): each pool with its queue and workers']],
  demo: [['--keep', 'keep the demo directory to run driftgate check on it afterwards']],
};

const COMMON: [string, string][] = [
  ['--config FILE', 'the config file; default $DRIFTGATE_CONFIG, else ./driftgate.yml'],
  ['--verbose', 'log lines down to info (the same as --log-level info)'],
  ['--log-format human|json', 'log lines on stderr: human (default) or JSON (default for serve and worker)'],
  ['--log-level LEVEL', 'trace, debug, info, warn, error, fatal, silent; default error, or log.level for JSON'],
  ['-h, --help', 'this help'],
];

/**
 * The lines of the top-level usage about one command: its usage line, then the indented description
 * under it. Read from the usage text itself, so a command added there has its help and usage line too.
 */
export function commandUsage(usage: string, name: string): { line: string; description: string[] } | undefined {
  const lines = usage.split('\n');
  const start = lines.findIndex((l) => l.trim().startsWith(`driftgate ${name} `) || l.trim() === `driftgate ${name}`);
  if (start < 0) return undefined;
  const description: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (!/^ {5,}\S/.test(l)) break;
    description.push(l.trim());
  }
  return { line: lines[start]!.trim(), description };
}

/** `driftgate COMMAND --help`. */
export function commandHelp(usage: string, name: string): string {
  const found = commandUsage(usage, name);
  if (!found) return usage;
  const options = [
    ...(OPTIONS[name] ?? []),
    ...COMMON.filter(([flag]) => flag !== '--config FILE' || found.line.includes('--config')),
  ];
  const width = Math.max(...options.map(([flag]) => flag.length));
  return [
    `Usage: ${found.line}`,
    '',
    ...found.description,
    '',
    'Options:',
    ...options.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
    '',
  ].join('\n');
}

/** Every option a command takes (`--all`, `--config`…), from its usage line and help: for "did you mean". */
export function commandOptions(usage: string, name: string): string[] {
  const texts = [commandUsage(usage, name)?.line ?? '', ...[...(OPTIONS[name] ?? []), ...COMMON].map(([flag]) => flag)];
  return [...new Set(texts.flatMap((text) => text.match(/--[a-z][a-z-]*/g) ?? []))];
}

/** The usage line of a command and where to read more: what a mistake in calling it prints. */
export function usageHint(usage: string, name: string): string {
  const found = commandUsage(usage, name);
  return found
    ? `usage: ${found.line}\nRun 'driftgate ${name} --help' for its options.\n`
    : `Run 'driftgate --help' for the commands.\n`;
}

/** driftgate's own version, from its package.json. */
export function driftgateVersion(root = packageRoot()): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}
