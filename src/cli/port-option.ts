import { environmentValue } from '../config/environment.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';

/** The port of /healthz, /readyz (and /metrics): `--port`, else PORT, else 3000; and where it was set. */
export function portOption(flag: string | undefined, io: Pick<CliIo, 'env'>): { port: number; portSetting: string } {
  const fromEnv = environmentValue(io.env, 'PORT');
  const port = Number(flag ?? fromEnv ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid port ${flag ?? fromEnv}`);
  const portSetting = flag !== undefined ? '--port' : fromEnv !== undefined ? 'PORT' : 'the default port';
  return { port, portSetting };
}
