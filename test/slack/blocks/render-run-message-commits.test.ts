import { describe, expect, it } from 'vitest';
import {
  renderRunMessage,
  type CommitLine,
  type RunMessageInput,
} from '../../../src/slack/blocks/render-run-message.js';
import {
  analysisOf,
  attribute,
  expectNoInjection,
  expectValidMessage,
  makeRun,
  mrkdwnTexts,
  resource,
} from './helpers.js';

const stack = { name: 'prod/database', environment: 'prod', mode: 'alert' as const };
const web = 'https://github.com/acme/infra';

function commitOf(i: number, overrides: Partial<CommitLine> = {}): CommitLine {
  const sha = i.toString(16).padStart(40, 'a');
  return {
    sha,
    author: 'Ada Lovelace',
    title: `Change ${i} (#${i})`,
    prNumber: i,
    prUrl: `${web}/pull/${i}`,
    commitUrl: `${web}/commit/${sha}`,
    ...overrides,
  };
}

function input(overrides: Partial<RunMessageInput> = {}): RunMessageInput {
  const analysis = analysisOf([resource('terraform_data.db', 'update', [attribute('input', 'small', 'medium')])]);
  return {
    stack,
    run: makeRun({ kind: 'pending_change', state: 'pending_approval' }),
    analysis,
    phase: { kind: 'awaiting' },
    canRemediate: false,
    ...overrides,
  };
}

const commitsText = (message: { blocks: unknown[] }) =>
  mrkdwnTexts({ blocks: message.blocks }).find((t) => t.includes('Commits')) ?? '';

describe('renderRunMessage: the commits of a pending change', () => {
  it('one line per commit: short sha linked, title, author, PR link', () => {
    const { message } = renderRunMessage(
      input({ commits: [commitOf(35), commitOf(34, { title: 'Resize db (#34)' })] }),
    );
    expectValidMessage(message);
    const text = commitsText(message);
    expect(text.split('\n')).toEqual([
      '*Commits waiting to be applied:*',
      `• <${web}/commit/${commitOf(35).sha}|${commitOf(35).sha.slice(0, 7)}> Change 35 (#35) — Ada Lovelace · <${web}/pull/35|#35>`,
      `• <${web}/commit/${commitOf(34).sha}|${commitOf(34).sha.slice(0, 7)}> Resize db (#34) — Ada Lovelace · <${web}/pull/34|#34>`,
    ]);
  });

  it('without links: the short sha as code and no PR link', () => {
    const { message } = renderRunMessage(
      input({ commits: [{ sha: 'b'.repeat(40), author: 'Ada', title: 'Resize db (#34)' }] }),
    );
    expect(commitsText(message)).toContain('• `bbbbbbb` Resize db (#34) — Ada');
    expect(commitsText(message)).not.toContain('<');
  });

  it('no commits, no section; another heading once the run is decided', () => {
    expect(commitsText(renderRunMessage(input()).message)).toBe('');
    expect(commitsText(renderRunMessage(input({ commits: [] })).message)).toBe('');
    const applied = renderRunMessage(
      input({ commits: [commitOf(1)], phase: { kind: 'applied', durationMs: 1000, verification: 'clean' } }),
    ).message;
    expect(commitsText(applied)).toMatch(/^\*Commits in this change:\*/);
  });

  it('escapes mrkdwn in titles and authors', () => {
    const hostile = commitOf(7, {
      title: '<!channel> see <https://evil.example|docs> & <@U999>',
      author: '<!here> Mallory',
    });
    const { message } = renderRunMessage(input({ commits: [hostile] }));
    expectNoInjection(mrkdwnTexts(message));
    expect(commitsText(message)).toContain(
      '&lt;!channel&gt; see &lt;https://evil.example|docs&gt; &amp; &lt;@U999&gt;',
    );
    expect(commitsText(message)).toContain('&lt;!here&gt; Mallory');
  });

  it('a link that is not plain https is shown as text, not as a link', () => {
    const { message } = renderRunMessage(
      input({ commits: [commitOf(3, { commitUrl: 'javascript:alert(1)', prUrl: 'https://x|<!channel>' })] }),
    );
    expectNoInjection(mrkdwnTexts(message));
    expect(commitsText(message)).not.toContain('<javascript');
  });

  it('20 commits with long titles and a huge plan: 5 shown, "+15 more", within Slack limits', () => {
    const commits = Array.from({ length: 20 }, (_, i) =>
      commitOf(20 - i, { title: `${'<&>'.repeat(300)} ${i}`, author: 'A'.repeat(500) }),
    );
    const changes = Array.from({ length: 2000 }, (_, i) =>
      resource(`terraform_data.r${i}`, 'update', [attribute('input', `old-${i}`, `new-${i}`)]),
    );
    const drift = Array.from({ length: 200 }, (_, i) =>
      resource(`terraform_data.d${i}`, 'update', [attribute('input', 'a', 'b')]),
    );
    const { message } = renderRunMessage(input({ commits, analysis: analysisOf(changes, drift), canRemediate: true }));
    expectValidMessage(message);
    const lines = commitsText(message).split('\n');
    expect(lines.filter((l) => l.startsWith('• '))).toHaveLength(5);
    expect(lines.at(-1)).toBe('+15 more');
  });

  it('very long URLs: lines that do not fit are counted, never cut', () => {
    const long = `${web}/${'x'.repeat(900)}`;
    const commits = Array.from({ length: 5 }, (_, i) => commitOf(i, { commitUrl: long, prUrl: long }));
    const { message } = renderRunMessage(input({ commits }));
    expectValidMessage(message);
    const lines = commitsText(message).split('\n');
    expect(lines.filter((l) => l.startsWith('• ')).length).toBeLessThan(5);
    expect(lines.at(-1)).toMatch(/^\+\d+ more$/);
  });
});
