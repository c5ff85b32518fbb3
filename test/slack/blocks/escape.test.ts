import { describe, expect, it } from 'vitest';
import {
  codeBlockTail,
  escapeCode,
  escapeMrkdwn,
  safeLink,
  safeMention,
  truncate,
  userRef,
} from '../../../src/slack/blocks/escape.js';
import { renderRunMessage } from '../../../src/slack/blocks/render-run-message.js';
import { analysisOf, attribute, expectNoInjection, makeRun, mrkdwnTexts, resource } from './helpers.js';

const HOSTILE = [
  '<!channel>',
  '<!here>',
  '<https://evil.example|click>',
  '<@U999>',
  '<!subteam^S1>',
  'a & b',
  '```',
  '`',
];

describe('mrkdwn escaping', () => {
  it.each(HOSTILE)('escapeMrkdwn(%s) leaves no control character', (value) => {
    expect(escapeMrkdwn(value)).not.toMatch(/[<>]|&(?!amp;|lt;|gt;)/);
    expect(escapeCode(value)).not.toContain('`');
  });

  it('userRef mentions only Slack user ids; safeMention and safeLink accept only their shapes', () => {
    expect(userRef('U012AB3CD')).toBe('<@U012AB3CD>');
    expect(userRef('<!channel>')).toBe('&lt;!channel&gt;');
    expect(userRef('cli:alice')).toBe('cli:alice');
    expect(safeMention('<!subteam^S123|@oncall>')).toBe('<!subteam^S123|@oncall>');
    expect(safeMention('<!channel>')).toBeUndefined();
    expect(safeMention('<!subteam^S1|x> <!channel>')).toBeUndefined();
    expect(safeLink('https://github.com/o/r/pull/1', 'PR')).toBe('<https://github.com/o/r/pull/1|PR>');
    expect(safeLink('https://evil|x>', 'PR')).toBe('https://evil|x&gt;');
    expect(safeLink('javascript:alert(1)', 'PR')).toBe('javascript:alert(1)');
  });

  it('truncate never leaves half an entity', () => {
    expect(truncate('abc&amp;def', 6)).toBe('abc…');
    expect(truncate('short', 10)).toBe('short');
  });

  it('codeBlockTail keeps the end, within the limit, and cannot be broken out of', () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i} <!channel> & \`\`\` done`);
    const block = codeBlockTail(lines.join('\n'), 2900);
    expect(block.length).toBeLessThanOrEqual(2900);
    expect(block).toMatch(/^```\n… \(\d+ earlier characters cut\)\nline \d+ /);
    expect(block.endsWith('line 499 &lt;!channel&gt; &amp; ˋˋˋ done\n```')).toBe(true);
    expect((block.match(/```/g) ?? []).length).toBe(2);
    expect(codeBlockTail('', 100)).toBe('```\n(no output)\n```');
    expect(codeBlockTail('&'.repeat(5000), 3000).length).toBeLessThanOrEqual(3000);
  });

  it('a plan full of hostile addresses, values, stack name and reason pings and links nobody', () => {
    const changes = HOSTILE.map((h, i) =>
      resource(`terraform_data.x${i}["${h}"]`, 'update', [attribute(`tags["${h}"]`, h, `${h}\`<!channel>\``)]),
    );
    const run = makeRun({ id: 'run-<!channel>', commitSha: '<!here>' });
    for (const phase of [
      { kind: 'awaiting' } as const,
      { kind: 'rejected', by: '<!channel>', reason: '<https://evil.example|click> <!here>' } as const,
    ]) {
      const { message } = renderRunMessage({
        stack: { name: 'prod/<!channel>', environment: '<!here>', mode: 'alert' },
        run,
        analysis: analysisOf(changes, changes),
        phase,
        canRemediate: true,
        remediationUrl: '<https://evil.example|click>',
      });
      expectNoInjection(mrkdwnTexts(message));
      // A value cannot close its code block: every fence in the text is one the renderer wrote.
      for (const text of mrkdwnTexts(message)) expect((text.match(/```/g) ?? []).length % 2).toBe(0);
    }
  });
});
