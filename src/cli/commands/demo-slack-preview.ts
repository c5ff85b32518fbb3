import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stack } from '../../domain/stack.js';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { Run } from '../../domain/run/model.js';
import { blockKitBuilderUrl, renderRunMessage } from '../../slack/blocks/index.js';

export interface SlackPreview {
  /** The Block Kit JSON ({ text, blocks }) of the alert. */
  file: string;
  /** The same blocks in Block Kit Builder, to see them as Slack shows them without installing the app. */
  builderUrl: string;
  /**
   * A page beside the JSON that forwards to `builderUrl`: the link is thousands of characters, too long to
   * print on a terminal, and a file:// link to this page is short.
   */
  builderPage: string;
}

/**
 * Renders the drift alert Slack would get for what a check found in one stack and writes it to a file that outlives the
 * demo: in `keepDir` when the demo dir is kept, else in a new temp dir of its own.
 */
export async function writeSlackPreview(
  stack: Stack,
  found: { run: Run; analysis: PlanAnalysis },
  keepDir: string | undefined,
): Promise<SlackPreview> {
  const { message } = renderRunMessage({
    stack: { name: stack.name, environment: stack.environment, mode: stack.mode },
    run: found.run,
    analysis: found.analysis,
    phase: { kind: 'awaiting' },
    canRemediate: false,
  });
  const file = keepDir
    ? join(keepDir, 'slack-drift-alert.json')
    : join(await mkdtemp(join(tmpdir(), 'driftgate-demo-slack-')), 'driftgate-demo-slack-alert.json');
  await writeFile(file, `${JSON.stringify({ text: message.text, blocks: message.blocks }, null, 2)}\n`, {
    mode: 0o600,
  });
  const builderUrl = blockKitBuilderUrl(message);
  const builderPage = file.replace(/\.json$/, '.html');
  await writeFile(builderPage, forwardingPage(builderUrl), { mode: 0o600 });
  return { file, builderUrl, builderPage };
}

function forwardingPage(url: string): string {
  const attribute = url.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  return `<!doctype html>\n<meta charset="utf-8">\n<meta http-equiv="refresh" content="0; url=${attribute}">\n<title>driftgate: the drift alert in Block Kit Builder</title>\n<p><a href="${attribute}">Open the drift alert in Slack's Block Kit Builder</a></p>\n`;
}
