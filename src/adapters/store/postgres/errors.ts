import { ExternalServiceError } from '../../../domain/errors.js';

/**
 * The Postgres store cannot be connected to (refused, unknown host, timeout, login refused). Names the
 * server and the config key it came from, never the URL itself: it holds the password.
 */
export class PostgresConnectError extends ExternalServiceError {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly configKey: string,
    /** The driver's error code (ECONNREFUSED, ENOTFOUND, 28P01…) or `no answer`. */
    readonly reason: string,
    retriable: boolean,
    options?: { cause?: unknown },
  ) {
    super(
      'postgres',
      `cannot connect to the run store at ${host}:${port} (${configKey}): ${describe(reason)}`,
      retriable,
      options,
    );
  }
}

function describe(reason: string): string {
  switch (reason) {
    case 'ECONNREFUSED':
      return 'connection refused; is Postgres running and listening there?';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'no answer':
      return 'no answer (timed out, or the server closed the connection)';
    case '28P01':
    case '28000':
      return 'login refused; check the user and password in the URL';
    case '3D000':
      return 'no such database';
    default:
      return reason;
  }
}

/** Where a connection URL points, for messages; undefined when it is not a URL at all. */
export function serverOf(url: string): { host: string; port: number } | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return undefined;
    return { host: parsed.hostname || 'localhost', port: Number(parsed.port || 5432) };
  } catch {
    return undefined;
  }
}

/** Why a first connection failed, as a code: the driver's errno or SQLSTATE, or `no answer`. */
export function connectFailure(err: unknown): { reason: string; retriable: boolean } {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.length > 0) {
    const login = code.startsWith('28') || code === '3D000';
    return { reason: code, retriable: !login };
  }
  // The driver gives a connection timeout (or a server closing on us) no code.
  return { reason: 'no answer', retriable: true };
}
