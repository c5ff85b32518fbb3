import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { openPoolTokens } from '../adapters/store/open-store.js';
import type { AgentApiConfig, DriftgateConfig } from '../config/schema.js';
import { ConfigError, errorMessage } from '../domain/errors.js';
import { createAgentListener, type AgentRoute, whoamiRoute } from '../http/agent/listener.js';
import { startAgentServer } from '../http/agent/server.js';
import type { HttpServer } from '../http/server.js';
import { authenticatePoolToken } from '../services/pool-tokens.js';
import type { AppContext } from './context.js';

export interface RunningAgentApi {
  server: HttpServer & { tls: boolean };
  stop(): Promise<void>;
}

/**
 * The control plane's agent API (`runners.agent`): workers reach driftgate here with their pool's token,
 * and only here. Its port listens before anything else of it runs, so a port in use fails the start.
 */
export async function startAgentApi(
  context: Pick<AppContext, 'config' | 'logger' | 'deps'>,
  settings: AgentApiConfig,
  options: { available: () => boolean; routes?: readonly AgentRoute[] },
): Promise<RunningAgentApi> {
  const { config, logger, deps } = context;
  const tls = settings.tls ? await readTls(config, settings.tls) : undefined;
  const tokens = await openPoolTokens(config);
  try {
    const listener = createAgentListener({
      authenticate: (presented) => authenticatePoolToken({ tokens, now: deps.now }, presented),
      routes: [whoamiRoute, ...(options.routes ?? [])],
      logger,
      available: options.available,
    });
    const server = await startAgentServer({
      port: settings.port,
      ...(settings.host ? { host: settings.host } : {}),
      ...(tls ? { tls } : {}),
      listener,
    });
    logger.info({ port: server.port, tls: server.tls }, 'agent API listening');
    return {
      server,
      async stop() {
        await server.close();
        await tokens.close();
      },
    };
  } catch (err) {
    await tokens.close();
    throw err;
  }
}

async function readTls(
  config: Pick<DriftgateConfig, 'baseDir' | 'file'>,
  tls: NonNullable<AgentApiConfig['tls']>,
): Promise<{ cert: Buffer; key: Buffer }> {
  const read = async (key: 'certFile' | 'keyFile') => {
    const path = resolve(config.baseDir, tls[key]);
    try {
      return await readFile(path);
    } catch (err) {
      throw new ConfigError(
        [{ path: `runners.agent.tls.${key}`, message: `cannot read ${path}: ${errorMessage(err)}` }],
        config.file,
      );
    }
  };
  return { cert: await read('certFile'), key: await read('keyFile') };
}
