/** What a CLI command may touch; passed in so tests run commands in-process against their own streams. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Resolves when the user asks to stop (SIGINT/SIGTERM); the CLI wires process signals here. */
  onShutdown(handler: (signal: string) => void): void;
  /** `--log-format` and `--log-level`, taken from the arguments by `main`. */
  log?: CliLogOptions;
}

/** A mistake in how the command was called: printed with the usage, exit 1. */
export class UsageError extends Error {}

/** `--log-format` and `--log-level`, which every command takes. */
export interface CliLogOptions {
  format?: 'human' | 'json';
  level?: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
}
