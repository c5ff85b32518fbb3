import { AgentRefusedError, createAgentClient } from '../../adapters/agent/agent-client.js';
import { stacksOfPool } from '../../config/runners.js';
import type { DriftgateConfig } from '../../config/schema.js';
import type { ControlPlane } from '../../ports/control-plane.js';
import { CONTROL_PLANE_URL_ENV, forbiddenVariablesHeld, POOL_TOKEN_ENV } from '../agent-worker.js';
import { buildTerraformRunner, processBasics } from '../context.js';
import { checkChangeEvents } from './change-events-checks.js';
import { type CheckResult, fail, ok, reason, skip } from './check-result.js';
import { checkRunAs, checkStacks, checkTerraformBinary, checkWritableDir } from './terraform-checks.js';
import { environmentValue } from '../../config/environment.js';

/**
 * `driftgate doctor --pool P` where a worker on the agent API runs: what it holds (nothing of the control
 * plane's), whether the control plane answers and takes its token as pool P's, terraform, the pool's
 * stacks and its cloud access. The store, the bucket, Slack, GitHub and on-call are the control plane's.
 */
export async function agentWorkerDoctor(
  config: DriftgateConfig,
  options: {
    env: Record<string, string | undefined>;
    pool: string;
    onResult: (result: CheckResult) => void;
    controlPlane?: ControlPlane;
  },
): Promise<CheckResult[]> {
  const { env, pool } = options;
  const all: CheckResult[] = [];
  const say = (...found: CheckResult[]) => {
    for (const r of found) {
      all.push(r);
      options.onResult(r);
    }
  };
  const held = forbiddenVariablesHeld(config, env);
  say(
    held.length
      ? fail(
          'environment',
          `holds ${held.join(', ')}, the control plane's`,
          "remove them from this worker's environment: a module it runs could read them",
        )
      : ok('environment', "holds nothing of the control plane's (no store, bucket or bot secret)"),
  );
  say(await checkControlPlane(env, pool, options.controlPlane));
  const runAs = await checkRunAs(config);
  const { runAs: _, ...withoutRunAs } = config;
  const { secrets, logger } = await processBasics({ ...config, log: { level: 'silent' } }, {});
  const terraform = await buildTerraformRunner(runAs?.status === 'fail' ? withoutRunAs : config, {
    env,
    secrets,
    logger,
    concurrency: config.defaults.concurrency,
  });
  const binary = await checkTerraformBinary(terraform, config.terraform.binary);
  say(binary, await checkWritableDir('plugin cache', config.terraform.pluginCacheDir, 'terraform.pluginCacheDir'));
  if (runAs) say(runAs);
  if (binary.status !== 'ok') say(skip('stacks', 'not checked: no terraform binary'));
  else say(...(await checkStacks(terraform, { ...config, stacks: stacksOfPool(config, pool) }, env)));
  say(
    skip(
      'store, artifacts, slack, github, pagerduty',
      "the control plane's: a worker on the agent API holds none of them",
    ),
  );
  say(...(await checkChangeEvents(config, env, { pool })));
  return all;
}

/** The control plane answers at its address, and takes this worker's token as its pool's. */
async function checkControlPlane(
  env: Record<string, string | undefined>,
  pool: string,
  given: ControlPlane | undefined,
): Promise<CheckResult> {
  const url = environmentValue(env, CONTROL_PLANE_URL_ENV)!;
  const token = environmentValue(env, POOL_TOKEN_ENV);
  if (!token)
    return fail(
      'control plane',
      `${POOL_TOKEN_ENV} is not set`,
      `driftgate pool token create ${pool}, on the control plane`,
    );
  const controlPlane = given ?? createAgentClient({ url, token, timeoutMs: 10_000 });
  try {
    const who = await controlPlane.whoami();
    return who.pool === pool
      ? ok('control plane', `${url} answers and takes token ${who.tokenId} as pool ${pool}'s`)
      : fail(
          'control plane',
          `the token is pool ${who.pool}'s, not ${pool}'s`,
          `give this worker a token of pool ${pool} (driftgate pool token create ${pool})`,
        );
  } catch (err) {
    return fail(
      'control plane',
      reason(err),
      err instanceof AgentRefusedError
        ? `create a live token (driftgate pool token create ${pool}) and run the same driftgate version here`
        : `check ${CONTROL_PLANE_URL_ENV} (its agent port, runners.agent.port), the network policy, and NODE_EXTRA_CA_CERTS for a private CA`,
    );
  }
}
