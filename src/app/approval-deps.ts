import type { Run } from '../domain/run/model.js';
import type { GitSources } from '../ports/git.js';
import type { GitHubClient } from '../ports/github.js';
import type { UsergroupResolver } from '../ports/usergroups.js';
import type { ApprovalDeps } from '../services/approval/approval-deps.js';
import { changeAuthors } from '../services/approval/change-authors.js';
import { loadPolicy } from '../services/check/stored-analysis.js';
import type { AppContext } from './context.js';

export interface ApprovalWiring {
  usergroups: UsergroupResolver;
  requestCheck(stack: string): void;
  /** Checkouts of Git-sourced stacks: who authored a pending change is read from them. */
  git?: GitSources;
  /** GitHub, when configured: who opened the PR a pending commit came through may not approve it. */
  github?: GitHubClient;
  via?: string;
}

/**
 * What approve and reject check a decision against, for every way they are reached (a Slack
 * click, `driftgate approve`): the approvers rules, the policies' extra approvals, the change's authors.
 */
export function approvalDeps(context: AppContext, wiring: ApprovalWiring): ApprovalDeps {
  const { config, store, logger } = context;
  // A run's authors do not change, and asking GitHub takes a call per commit: once per run (recent runs).
  const authors = new Map<string, Promise<string[]>>();
  const authorOf = (run: Run): Promise<string[]> => {
    const known = authors.get(run.id);
    if (known) return known;
    const asked = changeAuthors(
      {
        ...(wiring.git ? { git: wiring.git } : {}),
        ...(wiring.github ? { github: wiring.github } : {}),
        store,
        stack: context.stack,
        logger,
      },
      run,
    );
    // A failure is not remembered: the next click asks again.
    asked.catch(() => authors.delete(run.id));
    authors.set(run.id, asked);
    if (authors.size > 100) authors.delete(authors.keys().next().value!);
    return asked;
  };
  return {
    usergroups: wiring.usergroups,
    approvers: config.approvers,
    snoozeMs: config.defaults.snooze,
    policyOf: (run: Run) => loadPolicy(context.deps, run.id),
    authorOf,
    requestCheck: wiring.requestCheck,
    ...(wiring.via ? { via: wiring.via } : {}),
  };
}
