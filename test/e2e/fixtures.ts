import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { approvers } from '../helpers/config-builder.js';
import { CHANNEL, type SlackServe } from '../helpers/slack-serve.js';
import type { EmulatedMessage } from '../helpers/slack-emulator.js';

export const NETWORK = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.0.0.0/16", tags = { Name = "main", Team = "core" } }
}
`;

export const LEAD1 = 'U0LEAD1';
export const LEAD2 = 'U0LEAD2';
export const LEAD3 = 'U0LEAD3';
export const OUTSIDER = 'U0OUTSIDER';

export const APPROVERS = approvers({ 'sre-leads': [LEAD1, LEAD2, LEAD3] }, [
  { environments: ['prod'], count: 2, from: ['sre-leads'] },
  { stacks: '*', count: 1, from: ['sre-leads'] },
]);

/** Applies the stack, then changes its VPC's tags out of band: real drift for the next plan. */
export async function makeDrift(h: SlackServe, stack: string, team = 'console-cowboy'): Promise<void> {
  await h.applyWithTerraform(stack);
  await driftAgain(h, stack, team);
}

export async function driftAgain(h: SlackServe, stack: string, team: string): Promise<void> {
  await editResourceInput(
    { binary: 'terraform', env: h.env },
    h.stackDir(stack),
    { type: 'terraform_data', name: 'vpc' },
    (input) => {
      (input.tags as Record<string, string>).Team = team;
    },
  );
}

/** All the text of a message: its fallback and every block's text, for asserting what a person sees. */
export function textOf(message: Pick<EmulatedMessage, 'text' | 'blocks'> | undefined): string {
  return JSON.stringify([message?.text, message?.blocks ?? []]);
}

export function actionIds(message: EmulatedMessage | undefined): string[] {
  const blocks = (message?.blocks ?? []) as { type: string; elements?: { action_id?: string }[] }[];
  return blocks.filter((b) => b.type === 'actions').flatMap((b) => (b.elements ?? []).map((e) => e.action_id ?? ''));
}

/** Top-level messages of a channel (not thread replies). */
export function alerts(h: SlackServe, channel: string): EmulatedMessage[] {
  return h.emulator.messages(channel).filter((m) => !m.threadTs);
}

/** Settles until the channel holds `count` alerts: a fresh plan runs in the background after a refusal. */
export async function untilAlerts(h: SlackServe, count: number, channel = CHANNEL): Promise<void> {
  await h.settle();
  for (let i = 0; i < 200 && alerts(h, channel).length < count; i++) {
    await new Promise((r) => setTimeout(r, 50));
    await h.settle();
  }
}
