import { createAppContext } from '../../src/app/context.js';
import { loadConfig } from '../../src/config/load.js';
import { loadAnalysis } from '../../src/services/check/stored-analysis.js';
import { renderRunMessage } from '../../src/slack/blocks/render-run-message.js';
import { lineSink } from './stack-files.js';

/**
 * A run's drift alert as Slack would get it, rendered by the real renderer from what the check stored
 * with the run (its analysis artifact): for CLI tests that have no Slack, as one string of text and blocks.
 */
export async function storedAlertText(
  runId: string,
  options: { config: string; cwd: string; env: Record<string, string | undefined> },
): Promise<string> {
  const config = await loadConfig({ file: options.config, cwd: options.cwd, env: options.env });
  const context = await createAppContext(config, { env: options.env, logDestination: lineSink().stream });
  try {
    const run = await context.store.getRun(runId);
    const analysis = await loadAnalysis(context.deps, runId);
    if (!run || !analysis) throw new Error(`run ${runId} has no stored analysis`);
    const { message } = renderRunMessage({
      stack: { name: run.stack, mode: 'alert' },
      run,
      analysis,
      phase: { kind: 'awaiting' },
      canRemediate: false,
    });
    return JSON.stringify([message.text, message.blocks]);
  } finally {
    await context.close();
  }
}
