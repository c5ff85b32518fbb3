import { parseArgs } from 'node:util';
import { noControlPlaneUrl, usesAgentApi } from '../../app/agent-worker.js';
import { agentWorkerDoctor } from '../../app/doctor/agent-worker-doctor.js';
import { type CheckResult, fail, ok } from '../../app/doctor/check-result.js';
import { runDoctor } from '../../app/doctor/run-doctor.js';
import { validateConfigFile } from '../../config/load.js';
import { stacksOfPool, workerPoolIssues } from '../../config/runners.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import { doctorLine, doctorSummary } from '../render/doctor-report.js';

/**
 * `driftgate doctor`: checks the deployment from where it runs, one line per check, each failure with its
 * fix; exit 1 when any check failed. Secrets are named, never printed.
 */
export async function doctorCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string', short: 'c' }, pool: { type: 'string' } },
  });
  const say = (line: string) => io.stdout.write(`${line}\n`);
  // Where a worker runs: refused as `driftgate worker` is without the agent API (direct workers are gone),
  // else checked as that worker, which reads none of the control plane's sections.
  if (values.pool && !usesAgentApi(io.env)) {
    const refused = noControlPlaneUrl(values.pool);
    say(doctorLine(fail('control plane', refused.problem, refused.fix)));
    say("1 failed: a worker's other checks need the control plane's agent API");
    return 1;
  }
  const validation = await validateConfigFile({
    ...configOptions(values.config, io),
    ...(values.pool ? { role: 'agent-worker' as const } : {}),
  });
  const file = validation.file ?? 'config';
  if (!validation.config) {
    const first = validation.issues[0];
    say(
      doctorLine({
        check: 'config',
        status: 'fail',
        message: `${file}: ${first?.path ? `${first.path}: ` : ''}${first?.message ?? 'invalid'}${validation.issues.length > 1 ? ` (and ${validation.issues.length - 1} more)` : ''}`,
        fix: validation.notFound
          ? 'run driftgate init in the repository of your stacks to write one, or pass --config FILE'
          : `run driftgate validate${values.config ? ` --config ${values.config}` : ''} and fix every error`,
      }),
    );
    say('1 failed: the other checks need a valid config');
    return 1;
  }
  const config = validation.config;
  const poolIssue = values.pool
    ? workerPoolIssues(config, values.pool, '`driftgate doctor --pool` checks a worker of')[0]
    : undefined;
  if (poolIssue) {
    say(
      doctorLine({
        check: 'config',
        status: 'fail',
        message: `${file}: ${poolIssue.path}: ${poolIssue.message}`,
        fix: "name a pool the config's stacks are in, with runners: {type: workers}",
      }),
    );
    say('1 failed: the other checks need a pool of this config');
    return 1;
  }
  const n = validation.warnings.length;
  const warnings = n ? `, ${n} warning${n === 1 ? '' : 's'} (see driftgate validate)` : '';
  const counted = (values.pool ? stacksOfPool(config, values.pool) : config.stacks).length;
  const stacks = `${counted} stack${counted === 1 ? '' : 's'}${values.pool ? ` in pool ${values.pool}` : ''}`;
  const loaded = ok('config', `${file}: ${stacks}${warnings}`);
  say(doctorLine(loaded));
  const onResult = (r: CheckResult) => say(doctorLine(r));
  const results = [
    loaded,
    ...(values.pool
      ? await agentWorkerDoctor(config, { env: io.env, pool: values.pool, onResult })
      : await runDoctor(config, { env: io.env, onResult })),
  ];
  say(doctorSummary(results));
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}
