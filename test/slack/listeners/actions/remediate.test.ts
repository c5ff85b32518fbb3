import { describe, expect, it } from 'vitest';
import { createGitSources } from '../../../../src/adapters/git/git-sources.js';
import { createGitHubClient } from '../../../../src/adapters/github/client.js';
import { githubSettingsFor } from '../../../../src/adapters/github/env.js';
import { GithubConfig } from '../../../../src/config/schema.js';
import { RemediationUnavailableError } from '../../../../src/domain/errors.js';
import type { RemediationRecord } from '../../../../src/domain/remediation/record.js';
import type { RemediationOutcome, RemediationDeps } from '../../../../src/services/remediation/open-remediation-pr.js';
import { terraformCodeChecks } from '../../../../src/services/remediation/remediation-code-checks.js';
import { handleRemediate } from '../../../../src/slack/listeners/actions/remediate.js';
import type { SlackDeps } from '../../../../src/slack/slack-deps.js';
import { closedPort } from '../../../helpers/ports.js';
import { LEAD1, OUTSIDER, STAGING, useListenerWorld, type ListenerWorld } from '../world.js';

const world = useListenerWorld();
const COMMIT = 'c0ffee'.padEnd(40, '0');

/**
 * The real remediation parts, never reached: the PR itself is the exclusive work the scheduler seam is
 * given, and the tests answer for it. GitHub points at a closed port, so a call that slipped through fails.
 */
async function remediationDeps(w: ListenerWorld): Promise<RemediationDeps> {
  const { context } = w.app;
  const { deps } = context;
  const settings = githubSettingsFor({
    GITHUB_TOKEN: 'gh-test-token',
    GITHUB_API_URL: `http://127.0.0.1:${await closedPort()}`,
  })!;
  return {
    store: context.store,
    artifacts: deps.artifacts,
    logger: context.logger,
    now: deps.now,
    secrets: deps.secrets,
    git: createGitSources({ dataDir: context.config.dataDir, env: w.app.env }),
    github: createGitHubClient(settings),
    checks: terraformCodeChecks(deps.terraform, context.logger),
    settings: GithubConfig.parse({}),
  };
}

/** The world's deps with GitHub configured and STAGING in a GitHub repository. */
async function withGitHub(w: ListenerWorld): Promise<SlackDeps> {
  const remediation = await remediationDeps(w);
  const stack: SlackDeps['stack'] = (name) => {
    const found = w.deps.stack(name);
    return found && name === STAGING
      ? {
          ...found,
          git: {
            url: 'https://github.com/acme/infra.git',
            branch: 'main',
            repository: 'acme/infra',
            path: 'staging/network',
            varFiles: [],
          },
        }
      : found;
  };
  return { ...w.deps, remediation, stack };
}

const record = (runId: string, fingerprint: string): RemediationRecord => ({
  stack: STAGING,
  fingerprint,
  runId,
  repository: 'acme/infra',
  branch: 'driftgate/remediate-staging-network',
  prNumber: 7,
  prUrl: 'https://github.com/acme/infra/pull/7',
  requestedBy: LEAD1,
  createdAt: new Date(),
  codified: 2,
  leftForPerson: 1,
});

describe('handleRemediate', () => {
  it('without a GitHub integration, says what is missing and does nothing else', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted', { commitSha: COMMIT });
    await handleRemediate(w.deps, w.click(run.id, LEAD1), w.tell);
    expect(w.told).toEqual([expect.stringContaining('Remediation pull requests need a GitHub integration')]);
    expect(await w.audit()).toEqual([]);
    expect(w.recorded.exclusive).toEqual([]);
  });

  it.each([
    [
      'a stack in a local directory',
      'drifted' as const,
      'drift' as const,
      false,
      /stack staging\/network is a local directory: remediation PRs need the stack in a Git repository/,
    ],
    [
      'a pending change',
      'pending_approval' as const,
      'pending_change' as const,
      true,
      /is not drift: only drift of the real infrastructure is codified/,
    ],
    [
      'a drift no longer awaiting a decision',
      'rejected' as const,
      'drift' as const,
      true,
      /is rejected: only a drift awaiting a decision is codified/,
    ],
  ])(
    'refuses %s: audited as remediate_refused (unavailable), nothing asked of the scheduler',
    async (_case, state, kind, git, told) => {
      const w = await world();
      const deps = git ? await withGitHub(w) : { ...w.deps, remediation: await remediationDeps(w) };
      const run = await w.run(STAGING, state, { kind, commitSha: COMMIT, message: true });
      const before = w.snapshot(run.id);
      await handleRemediate(deps, w.click(run.id, LEAD1), w.tell);
      expect(w.told).toEqual([expect.stringMatching(told)]);
      expect(await w.store.listAudit({ stack: STAGING })).toMatchObject([
        { action: 'remediate_refused', actor: LEAD1, detail: { reason: 'unavailable' } },
      ]);
      expect(w.snapshot(run.id)).toEqual(before);
      expect(w.recorded.exclusive).toEqual([]);
    },
  );

  it('refuses someone who may not approve the stack: audited with the reason, nothing asked of the scheduler', async () => {
    const w = await world();
    const deps = await withGitHub(w);
    const run = await w.run(STAGING, 'drifted', { commitSha: COMMIT, message: true });
    const before = w.snapshot(run.id);
    await handleRemediate(deps, w.click(run.id, OUTSIDER), w.tell);
    expect(w.told).toEqual([
      expect.stringMatching(
        /Opening a remediation PR for staging\/network takes someone who may approve its plans\. Only members of/,
      ),
    ]);
    expect(await w.store.listAudit({ stack: STAGING })).toMatchObject([
      { action: 'remediate_refused', actor: OUTSIDER, detail: { reason: 'not_in_group' } },
    ]);
    expect(w.snapshot(run.id)).toEqual(before);
    expect(w.recorded.exclusive).toEqual([]);
  });

  it.each([
    [
      'opened',
      /opened remediation PR <https:\/\/github\.com\/acme\/infra\/pull\/7\|#7>: 2 attributes written into the code, 1 left for a person/,
    ],
    [
      'existing',
      /asked for a remediation PR: <https:\/\/github\.com\/acme\/infra\/pull\/7\|#7> is already open for this drift/,
    ],
  ] as const)(
    'a PR %s: acked, run as exclusive work on the stack, the message re-rendered and the PR linked in its thread',
    async (status, reply) => {
      const w = await world();
      const deps = await withGitHub(w);
      const run = await w.run(STAGING, 'drifted', { commitSha: COMMIT, analysis: true, message: true });
      const outcome = { status, record: record(run.id, run.fingerprint!) } as RemediationOutcome;
      w.scheduler.exclusiveAnswer = async () => outcome;
      await handleRemediate(deps, w.click(run.id, LEAD1), w.tell);
      expect(w.told).toEqual([
        expect.stringContaining(
          `Writing the drift of ${STAGING} into its code; the PR link follows in the alert's thread.`,
        ),
      ]);
      expect(w.recorded.exclusive).toEqual([STAGING]);
      const [update, thread, ...rest] = w.outbox();
      expect(rest).toEqual([]);
      expect(update?.method).toBe('chat.update');
      expect(thread?.method).toBe('chat.postMessage');
      expect(JSON.stringify(thread?.payload)).toMatch(reply);
      expect((await w.store.getRun(run.id))?.state).toBe('drifted');
    },
  );

  it('a PR merged already: says so in the thread and asks for a check of the stack', async () => {
    const w = await world();
    const deps = await withGitHub(w);
    const run = await w.run(STAGING, 'drifted', { commitSha: COMMIT, message: true });
    w.scheduler.exclusiveAnswer = async () => ({ status: 'merged', record: record(run.id, run.fingerprint!) });
    w.scheduler.answer = () => new Promise(() => undefined);
    await handleRemediate(deps, w.click(run.id, LEAD1), w.tell);
    expect(w.recorded.scheduled).toEqual([{ stack: STAGING, trigger: 'manual' }]);
    expect(w.outbox().map((o) => o.method)).toEqual(['chat.postMessage']);
    expect(JSON.stringify(w.outbox()[0]!.payload)).toContain('for this drift is merged already');
  });

  it('nothing to codify: audited with how much is left, listed in the thread', async () => {
    const w = await world();
    const deps = await withGitHub(w);
    const run = await w.run(STAGING, 'drifted', { commitSha: COMMIT, message: true });
    const skipped = [
      {
        address: 'module.app.terraform_data.token',
        code: 'in-module' as const,
        reason: 'inside a module',
        guidance: 'change the module',
      },
    ];
    w.scheduler.exclusiveAnswer = async () => ({ status: 'nothing_to_codify', skipped });
    await handleRemediate(deps, w.click(run.id, LEAD1), w.tell);
    expect(await w.store.listAudit({ runId: run.id })).toMatchObject([
      { action: 'remediation_nothing_to_codify', actor: LEAD1, detail: { left: 1 } },
    ]);
    expect(JSON.stringify(w.outbox()[0]!.payload)).toContain('module.app.terraform_data.token');
  });

  it.each([
    [
      'a driftgate error: its message is told and logged as a warning',
      new RemediationUnavailableError('the branch is protected'),
      'the branch is protected',
      '"level":40',
    ],
    [
      'a bug: told as unexpected, logged as an error',
      new TypeError('x is undefined'),
      'unexpected error: x is undefined',
      '"level":50',
    ],
  ])('a failure that is %s; audited as remediation_failed', async (_case, error, reason, level) => {
    const w = await world();
    const deps = await withGitHub(w);
    const run = await w.run(STAGING, 'drifted', { commitSha: COMMIT, message: true });
    w.scheduler.exclusiveAnswer = async () => {
      throw error;
    };
    await handleRemediate(deps, w.click(run.id, LEAD1), w.tell);
    expect(w.told[1]).toContain(`No remediation PR for ${STAGING}: ${reason}`);
    expect(await w.store.listAudit({ runId: run.id })).toMatchObject([
      { action: 'remediation_failed', actor: LEAD1, detail: { error: reason } },
    ]);
    expect(w.app.logs.filter((l) => l.includes(level)).join('')).toContain('remediation failed');
    expect(w.outbox()).toEqual([]);
    expect((await w.store.getRun(run.id))?.state).toBe('drifted');
  });
});
