import { describe, expect, it } from 'vitest';
import { validateConfigText } from '../../src/config/load.js';

async function warningsOf(yaml: string): Promise<string[]> {
  const result = await validateConfigText(yaml, { baseDir: '/nonexistent-base', env: {} });
  expect(result.issues).toEqual([]);
  return result.warnings.filter((w) => !w.message.includes('does not exist')).map((w) => `${w.path}: ${w.message}`);
}

const STACKS = `
version: 1
stacks:
  - { name: prod/db, dir: a, environment: prod }
  - { name: dev/app, dir: b, environment: dev }
`;

describe('validate: Slack and approvers warnings', () => {
  it('says when nobody can apply from Slack at all', async () => {
    expect(await warningsOf(`slack:\n  defaultChannel: C0ALERTS\n${STACKS}`)).toEqual([
      'approvers: is not set: nobody can apply from Slack, every stack is alert only',
    ]);
  });

  it('names the stacks no rule covers, a group that grants nobody, and a channel rule that matches nothing', async () => {
    const yaml = `
slack:
  defaultChannel: C0ALERTS
  channels:
    - { match: "staging/*", channel: C0STAGING }
approvers:
  groups:
    leads: { users: [U0LEAD1] }
    empty: {}
  rules:
    - { environments: [prod], count: 2, from: [leads] }
${STACKS}`;
    expect(await warningsOf(yaml)).toEqual([
      'approvers.rules: no rule covers dev/app: their plans cannot be applied from Slack',
      'approvers.groups.empty: has no users and no usergroups: it grants nobody',
      'slack.channels[0].match: "staging/*" matches no stack',
    ]);
  });

  it('is quiet when every stack is covered', async () => {
    const yaml = `slack:\n  defaultChannel: C0ALERTS\napprovers:\n  groups:\n    leads: { users: [U0LEAD1] }\n  rules:\n    - { stacks: "*", from: [leads] }\n${STACKS}`;
    expect(await warningsOf(yaml)).toEqual([]);
  });
});
