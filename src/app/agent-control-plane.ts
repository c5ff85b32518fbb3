import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createOpRunner, terraformOnWorkers } from '../adapters/agent/terraform-on-workers.js';
import type { Codify } from '../services/remediation/codify-drift.js';
import { codifyOnAgent } from '../services/pools/codify-on-agent.js';
import { historyOnAgent } from '../services/pools/history-on-agent.js';
import type { ChangeHistory } from '../ports/change-history.js';
import { openAgentOps, openPoolTokens, openWorkerRegistry } from '../adapters/store/open-store.js';
import { configuredPools } from '../domain/pool/configured-pools.js';
import { createPoolStatus, type PoolStatus } from '../services/pools/pool-status.js';
import type { AgentApiConfig, DriftgateConfig } from '../config/schema.js';
import { ConfigError, errorMessage } from '../domain/errors.js';
import { createAgentListener, whoamiRoute } from '../http/agent/listener.js';
import { agentOpRoutes } from '../http/agent/op-routes.js';
import { startAgentServer } from '../http/agent/server.js';
import type { HttpServer } from '../http/server.js';
import type { AgentOpStore } from '../ports/agent-ops.js';
import type { PoolTokenStore } from '../ports/pool-tokens.js';
import type { TerraformRunner } from '../ports/terraform.js';
import { authenticatePoolToken } from '../services/pools/pool-tokens.js';
import type { AppContext } from './context.js';

/** A lease lasts this long without its worker's word; workers extend it every third of it. */
const LEASE_MS = 30_000;

export interface AgentControlPlane {
  server: HttpServer & { tls: boolean };
  /** terraform for the services: each command an op on the stack's pool, run by one of its workers. */
  terraform: TerraformRunner;
  ops: AgentOpStore;
  /** Each pool's workers (their heartbeats through the agent API) and waiting jobs. */
  pools: PoolStatus;
  /** A remediation's code, written and checked by a worker of the stack's pool. */
  codify: Codify;
  /** CloudTrail as the stack's pool sees it (asked by one of its workers); undefined for a stack not configured. */
  historyFor(stack: string): ChangeHistory | undefined;
  stop(): Promise<void>;
}

/** `runners: {type: workers}`: workers reach this control plane through the agent API only. */
export function agentSettings(config: Pick<DriftgateConfig, 'runners'>): AgentApiConfig | undefined {
  return config.runners?.type === 'workers' ? config.runners.agent : undefined;
}

/**
 * The control plane's half of the agent API: its port (before anything else of it runs, so a port in
 * use fails the start), the pool tokens it checks, and the ops it hands to workers. Runs, locks,
 * approvals, artifacts and the queue stay here; a worker holds its token and its pool's cloud only.
 */
export async function startAgentControlPlane(
  context: Pick<AppContext, 'config' | 'logger' | 'deps' | 'store'>,
  settings: AgentApiConfig,
): Promise<AgentControlPlane> {
  const { config, logger, deps, store } = context;
  const tls = settings.tls ? await readTls(config, settings.tls) : undefined;
  const parts: { close(): Promise<void> }[] = [];
  try {
    const store_ = config.store?.type === 'postgres' ? config.store : undefined;
    if (!store_)
      throw new ConfigError(
        [{ path: 'store.type', message: 'the agent API keeps its jobs in the shared store: store: {type: postgres}' }],
        config.file,
      );
    const tokens: PoolTokenStore = await openPoolTokens(config);
    parts.push(tokens);
    const ops = await openAgentOps(config);
    parts.push(ops);
    const registry = await openWorkerRegistry(config);
    parts.push(registry);
    const shutdown = new AbortController();
    let stopping = false;
    const listener = createAgentListener({
      authenticate: (presented) => authenticatePoolToken({ tokens, now: deps.now }, presented),
      routes: [
        whoamiRoute,
        ...agentOpRoutes({ ops, audit: store, logger, now: deps.now, leaseMs: LEASE_MS, registry }, shutdown.signal),
      ],
      logger,
      available: () => !stopping,
    });
    const server = await startAgentServer({
      port: settings.port,
      ...(settings.host ? { host: settings.host } : {}),
      ...(tls ? { tls } : {}),
      listener,
    });
    logger.info({ port: server.port, tls: server.tls }, 'agent API listening');
    const run = createOpRunner({ ops, logger, newId: randomUUID, queueWaitMs: settings.queueWait });
    const terraform = terraformOnWorkers({ run, timeouts: config.terraform.timeouts });
    const codify = codifyOnAgent({ ...deps, run, runMs: 2 * config.terraform.timeouts.plan });
    const pools = createPoolStatus({
      registry,
      queue: ops,
      pools: configuredPools(config.stacks),
      now: deps.now,
      staleAfterMs: config.runners?.type === 'workers' ? config.runners.workerStaleAfter : 30_000,
    });
    const upkeep = keepOpsTidy(ops, logger);
    return {
      server,
      terraform,
      ops,
      pools,
      codify,
      historyFor: (name) => {
        const stack = config.stacks.find((s) => s.name === name);
        return stack ? historyOnAgent(run, { pool: stack.pool, stack: stack.name }, 5 * 60_000) : undefined;
      },
      async stop() {
        stopping = true;
        upkeep.stop();
        shutdown.abort();
        await server.close();
        for (const part of parts.reverse()) await part.close().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const part of parts.reverse()) await part.close().catch(() => undefined);
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

/**
 * Leases that ran out, looked for once a second by each replica (not by every claim and every waiter): a
 * plan's job goes back to its pool, an apply's is lost, and its waiter sees which. What a waiter that died
 * left behind (its replica was killed) is dropped after a day, files and all.
 */
function keepOpsTidy(ops: Awaited<ReturnType<typeof openAgentOps>>, logger: AppContext['logger']) {
  const expiry = setInterval(
    () =>
      void ops
        .expireLeases()
        .catch((err: unknown) => logger.warn({ err: errorMessage(err) }, 'looking for expired leases failed')),
    1_000,
  );
  expiry.unref();
  const pruning = setInterval(
    () =>
      void ops
        .prune(24 * 3600_000)
        .then((n) => n > 0 && logger.info({ removed: n }, 'agent jobs nobody waits for removed'))
        .catch((err: unknown) => logger.warn({ err: errorMessage(err) }, 'removing old agent jobs failed')),
    3600_000,
  );
  pruning.unref();
  return {
    stop() {
      clearInterval(pruning);
      clearInterval(expiry);
    },
  };
}
