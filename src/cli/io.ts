/** What a CLI command may touch; passed in so tests run commands in-process against their own streams. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Resolves when the user asks to stop (SIGINT/SIGTERM); the CLI wires process signals here. */
  onShutdown(handler: (signal: string) => void): void;
}

/** A mistake in how the command was called: printed with the usage, exit 1. */
export class UsageError extends Error {}
