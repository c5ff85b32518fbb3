import { pathToFileURL } from 'node:url';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runChecks } from '../../app/cli/checks.js';
import { createAppContext, type AppContext } from '../../app/context.js';
import { loadConfig } from '../../config/load.js';
import type { Stack } from '../../domain/stack.js';
import { cliActor } from '../cli-actor.js';
import { useColor } from '../color.js';
import type { CliIo } from '../io.js';
import { checkExitCode, renderCheckReport } from '../render/check-report.js';
import { logSettings } from '../log-options.js';
import { packageRoot } from '../package-root.js';
import { selfCommand, shellQuote } from '../self-command.js';
import { editResourceInput, forgetResource, type TerraformCli } from './demo-drift.js';
import { writeSlackPreview } from './demo-slack-preview.js';

/**
 * `driftgate demo`: fully offline. Copies the example stacks to a temp dir, applies them, changes three of
 * them out of band (as someone in a cloud console would), then runs a real check and shows the report
 * and the Slack alert the most serious drift (prod/database) would post.
 */
export async function demoCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { keep: { type: 'boolean' }, dir: { type: 'string' } } });
  const work = values.dir ?? (await mkdtemp(join(tmpdir(), 'driftgate-demo-')));
  const say = (line: string) => io.stdout.write(`${line}\n`);
  try {
    await mkdir(work, { recursive: true });
    await cp(join(packageRoot(), 'examples'), work, { recursive: true });
    // The demo must not depend on the machine's terraform CLI config (which may point at a missing file).
    const cliConfig = join(work, '.terraformrc');
    await writeFile(cliConfig, 'disable_checkpoint = true\n');
    const env = { ...io.env, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
    const config = await loadConfig({ file: join(work, 'driftgate.yml'), cwd: work, env });
    const context = await createAppContext(config, {
      env,
      logDestination: io.stderr,
      log: logSettings(io.log, config.log.level, 'human'),
    });
    const version = await context.deps.terraform.version();

    say(`driftgate demo in ${work}`);
    say(
      `${version.flavor} ${version.version}, ${config.stacks.length} example stacks: ${config.stacks.map((s) => s.name).join(', ')}`,
    );
    say('');
    say('1/3 Applying the example stacks (terraform_data resources, no provider downloads)…');
    await applyAll(context, config.stacks);

    say('2/3 Changing real infrastructure by hand, outside terraform:');
    const tf: TerraformCli = { binary: version.path, env };
    const dir = (name: string) => config.stacks.find((s) => s.name === name)!.dir;
    await editResourceInput(tf, dir('prod/database'), { type: 'terraform_data', name: 'db_instance' }, (input) => {
      input.instance_class = 'db.r6g.2xlarge';
      input.multi_az = false;
    });
    await editResourceInput(tf, dir('prod/database'), { type: 'terraform_data', name: 'db_credentials' }, (input) => {
      input.username = 'admin';
    });
    say('    prod/database      someone resized the instance, turned off multi-AZ and renamed the DB user');
    await editResourceInput(
      tf,
      dir('staging/networking'),
      { type: 'terraform_data', name: 'security_group' },
      (input) => {
        const rules = input.ingress as { port: number; cidr_blocks: string[] }[];
        rules[1]!.cidr_blocks = ['0.0.0.0/0'];
      },
    );
    say('    staging/networking someone opened SSH (port 22) to the whole internet');
    await forgetResource(tf, dir('dev/app'), 'terraform_data.dns_record');
    say('    dev/app            someone deleted the DNS record');
    say('');
    say('3/3 driftgate check --all');
    say('');
    const outcomes = await runChecks(context, config.stacks, {
      actor: cliActor(io),
      onShutdown: (stop) => io.onShutdown(stop),
    }).finally(() => context.close());
    io.stdout.write(renderCheckReport(outcomes, { color: useColor(io) }));
    say('');
    const kept = values.keep || values.dir ? work : undefined;
    const featured = outcomes.find((o) => o.stack === 'prod/database');
    if (featured?.status === 'drifted') {
      const preview = await writeSlackPreview(config.stacks.find((s) => s.name === featured.stack)!, featured, kept);
      const where = kept ? 'in the demo dir' : 'outside the demo dir, which is removed: delete it when done';
      say(`The prod/database drift alert as Slack would show it (the JSON is ${where}):`);
      say(`Slack message JSON: ${preview.file}`);
      say(`Block Kit Builder: ${pathToFileURL(preview.builderPage).href} (a page that opens it there)`);
      say('');
    }
    say(`The database password is a sensitive variable: it is shown as (sensitive value) everywhere above.`);
    const self = selfCommand(io.env);
    if (kept) {
      say(`Try it yourself: cd ${shellQuote(work)} && ${self.command} check --all`);
      if (!self.onPath)
        say('(`npm link` or `npm install -g` puts `driftgate` on your PATH: see Install in the README.)');
    } else say(`Run \`${self.command} demo --keep\` to keep the demo directory and try \`driftgate check\` on it.`);
    const code = checkExitCode(outcomes);
    return code === 2 ? 0 : 1;
  } finally {
    if (!values.keep && !values.dir) await rm(work, { recursive: true, force: true });
  }
}

/** Plans and applies every stack, two at a time (the machine may have only two cores). */
async function applyAll(context: AppContext, stacks: Stack[]): Promise<void> {
  const queue = [...stacks];
  const worker = async () => {
    for (let stack = queue.shift(); stack; stack = queue.shift()) {
      const planFile = join(context.deps.workDir, `demo-${stack.name.replaceAll('/', '-')}.tfplan`);
      await context.deps.terraform.plan(stack, planFile);
      await context.deps.terraform.apply(stack, planFile);
      await rm(planFile, { force: true });
    }
  };
  await Promise.all(Array.from({ length: Math.min(2, context.config.defaults.concurrency) }, worker));
}
