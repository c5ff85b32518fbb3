import { describe, expect, it } from 'vitest';
import { emptyEvaluation } from '../../../src/domain/policy/evaluate.js';
import { ACTION_IDS, REJECT_MODAL } from '../../../src/slack/action-ids.js';
import {
  blockKitBuilderUrl,
  renderAck,
  renderApplyOutput,
  renderCommandError,
  renderDigest,
  renderFullPlanFile,
  renderHelp,
  renderHome,
  renderNotAllowed,
  renderPlanFailed,
  renderRejectModal,
  renderRunMessage,
  renderShow,
  renderStatus,
  type StackStatusRow,
} from '../../../src/slack/blocks/index.js';
import { LIMITS } from '../../../src/slack/limits.js';
import type { StackStatus } from '../../../src/domain/run/model.js';
import {
  ALL_FIXTURE_SECRETS,
  buttonsOf,
  expectNoInjection,
  expectValidMessage,
  expectValidView,
  fixtureAnalysis,
  makeRun,
  mrkdwnTexts,
  REAL_FIXTURES,
} from './helpers.js';

const stack = { name: 'prod/database', environment: 'prod', mode: 'alert' as const };
const counts = { create: 1, update: 2, delete: 1, replace: 1, read: 0 };
const STATUSES: StackStatus[] = ['unknown', 'in_sync', 'drifted', 'pending_approval', 'errored', 'blocked'];
const at = new Date('2025-03-04T05:06:07Z');

function rows(n: number, name = (i: number) => `env${i % 3}/stack-${i}`): StackStatusRow[] {
  return Array.from({ length: n }, (_, i) => ({
    name: name(i),
    environment: `env${i % 3}`,
    status: STATUSES[i % STATUSES.length]!,
    lastCheckAt: at,
    counts,
    pendingApprovals: i % 4,
    ...(i % 5 === 0 ? { silencedUntil: at, blockedReason: 'apply interrupted <!channel>' } : {}),
  }));
}

describe('renderDigest', () => {
  it.each([1, 10, 47, 48, 500])('%i stacks fit in 50 blocks, each shown one with an open button', (n) => {
    const entries = Array.from({ length: n }, (_, i) => ({
      stack: `s${i}`,
      environment: 'prod',
      run: makeRun({ id: `run-${i}` }),
      counts,
    }));
    const message = renderDigest({ entries });
    expectValidMessage(message);
    const buttons = buttonsOf(message.blocks);
    expect(buttons.every((b) => b.action_id === ACTION_IDS.openStack && /^run-\d+$/.test(b.value!))).toBe(true);
    const hidden = n - buttons.length;
    if (hidden) expect(JSON.stringify(message.blocks)).toContain(`+${hidden} more stacks`);
    else expect(buttons).toHaveLength(n);
  });
});

describe('/drift answers', () => {
  it.each([0, 1, 12, 400])('renderStatus of %i stacks groups by state within limits', (n) => {
    const message = renderStatus(rows(n));
    expectValidMessage(message);
    expectNoInjection(mrkdwnTexts(message));
    if (n >= 12) {
      const json = JSON.stringify(message.blocks);
      const order = [
        '*Blocked*',
        '*Plan failed*',
        '*Waiting for approval*',
        '*Drifted*',
        '*Not checked yet*',
        '*In sync*',
      ].map((t) => json.indexOf(t));
      expect(order.every((pos, i) => pos >= 0 && (i === 0 || pos > order[i - 1]!))).toBe(true);
    }
    if (n === 400) expect(JSON.stringify(message.blocks)).toMatch(/… and \d+ more/);
  });

  it('renderStatus with long names still fits', () => {
    expectValidMessage(renderStatus(rows(300, (i) => `${'x'.repeat(290)}-${i}`)));
  });

  it.each(REAL_FIXTURES)('renderShow(%s) summarises the latest plan', (name) => {
    const analysis = fixtureAnalysis(name);
    const message = renderShow({ stack, run: makeRun({ counts: analysis.counts }), analysis });
    expectValidMessage(message);
    const json = JSON.stringify(message);
    for (const secret of ALL_FIXTURE_SECRETS) expect(json).not.toContain(secret);
    if (name === 'data-changes.json') expect(json).toContain('*DESTROY* `terraform_data.legacy`');
  });

  it('renderShow marks what an ignore rule covers, with the rule', () => {
    const analysis = fixtureAnalysis('data-changes.json');
    const ignored = [{ address: 'terraform_data.legacy', rule: 'legacy-owned-elsewhere' }];
    const message = renderShow({
      stack,
      run: makeRun({ counts: analysis.counts }),
      analysis,
      policy: { ...emptyEvaluation(), ignored },
    });
    expectValidMessage(message);
    expect(JSON.stringify(message)).toContain(
      '*DESTROY* `terraform_data.legacy` _(ignored by `legacy-owned-elsewhere`)_',
    );
  });

  it('renderShow of a stack never checked', () => {
    expectValidMessage(renderShow({ stack }));
  });

  it('help, errors, refusals and acks', () => {
    const help = renderHelp();
    expectValidMessage(help);
    for (const sub of ['check', 'show', 'silence', 'unsilence', 'unlock', 'help'])
      expect(JSON.stringify(help.blocks)).toContain(`/drift ${sub}`);
    const error = renderCommandError('no stack named `prod/<!channel>`', ['prod/network', 'prod/<!here>']);
    expectValidMessage(error);
    expectNoInjection(mrkdwnTexts(error));
    expect(JSON.stringify(error.blocks)).toContain('Did you mean `prod/network`');
    for (const m of [
      renderNotAllowed('only sre-leads may unlock <!channel>'),
      renderAck('queued <https://evil.example|x>'),
      renderAck(''),
    ]) {
      expectValidMessage(m);
      expectNoInjection(mrkdwnTexts(m));
    }
  });
});

describe('thread replies and files', () => {
  it('renderPlanFailed keeps the end of stderr within limits', () => {
    const stderrTail = `${'noise <!channel>\n'.repeat(2000)}Error: Invalid reference\n  on main.tf line 3`;
    const message = renderPlanFailed({ stack, run: makeRun(), error: 'terraform plan exited 1 <!here>', stderrTail });
    expectValidMessage(message);
    expectNoInjection(mrkdwnTexts(message));
    expect(JSON.stringify(message.blocks)).toContain('on main.tf line 3\\n```');
  });

  it.each([true, false])('renderApplyOutput ok=%s', (ok) => {
    const message = renderApplyOutput({
      ok,
      output: `${'x'.repeat(10_000)}\nApply complete! Resources: 1 added`,
      durationMs: 34_000,
    });
    expectValidMessage(message);
    expect(message.text).toBe(ok ? 'Apply succeeded in 34 s' : 'Apply failed after 34 s');
    expect(JSON.stringify(message.blocks)).toContain('Apply complete! Resources: 1 added');
  });

  it.each(REAL_FIXTURES)('renderFullPlanFile(%s) is the whole masked plan', (name) => {
    const analysis = fixtureAnalysis(name);
    const file = renderFullPlanFile('prod/database', makeRun(), analysis);
    expect(file.filename).toBe('plan-prod-database-run-0001.txt');
    expect(file.content).toContain(analysis.hasChanges ? 'Plan: ' : 'No changes.');
    expect(file.content).not.toContain('\u001b[');
    for (const secret of ALL_FIXTURE_SECRETS) expect(file.content).not.toContain(secret);
  });
});

describe('views and links', () => {
  it.each([0, 3, 40])('renderHome with %i pending runs stays within 100 blocks', (n) => {
    const pending = Array.from({ length: n }, (_, i) => ({
      stack,
      run: makeRun({ id: `run-${i}`, counts }),
      progress: { have: 1, need: 2, approvers: ['U1'] },
    }));
    const activity = Array.from({ length: 100 }, (_, i) => ({
      at,
      actor: i % 2 ? 'U1' : '<!channel>',
      action: 'approve',
      runId: `run-${i}`,
      stack: 'prod/<!here>',
    }));
    const view = renderHome({ stacks: rows(500), pending, activity, now: at });
    expect(view.type).toBe('home');
    expectValidView(view);
    expectNoInjection(mrkdwnTexts(view.blocks));
    const buttons = buttonsOf(view.blocks);
    expect(buttons.filter((b) => b.action_id === ACTION_IDS.approve)).toHaveLength(Math.min(n, 15));
    expect(buttons.some((b) => b.action_id === ACTION_IDS.refreshHome)).toBe(true);
  });

  it('renderRejectModal: callback id, run id as metadata, optional reason', () => {
    const modal = renderRejectModal({ run: makeRun({ counts }), stack: { name: 'prod/<!channel>' } });
    expect(modal).toMatchObject({ type: 'modal', callback_id: REJECT_MODAL.callbackId, private_metadata: 'run-0001' });
    expect(modal.title.text.length).toBeLessThanOrEqual(LIMITS.viewTitle);
    expect(modal.blocks[1]).toMatchObject({
      type: 'input',
      optional: true,
      block_id: REJECT_MODAL.reasonBlockId,
      element: { action_id: REJECT_MODAL.reasonActionId, multiline: true },
    });
    expectValidView(modal);
    expectNoInjection(mrkdwnTexts(modal.blocks));
  });

  it('blockKitBuilderUrl encodes the blocks', () => {
    const { message } = renderRunMessage({
      stack,
      run: makeRun(),
      analysis: fixtureAnalysis('s3-drift.json'),
      phase: { kind: 'awaiting' },
      canRemediate: false,
    });
    const url = blockKitBuilderUrl(message);
    expect(url.startsWith('https://app.slack.com/block-kit-builder#')).toBe(true);
    expect(JSON.parse(decodeURIComponent(url.split('#')[1]!))).toEqual({ blocks: message.blocks });
  });
});
