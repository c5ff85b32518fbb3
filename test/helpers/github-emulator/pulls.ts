/**
 * Pull requests between branches of the emulated repository: listed, opened (with GitHub's 422s),
 * labelled, found by commit, and merged for real (a merge or squash commit on the base branch).
 */
import { ApiError, created, notFound, objectBody, ok, str, validationFailed, type Json } from './http.js';
import type { EmulatorContext, Route } from './routes.js';
import { idOf, repoApi, repoWeb, repositoryJson, userJson } from './shapes.js';

export interface EmulatedPull {
  number: number;
  title: string;
  body: string | null;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  labels: string[];
  user: string;
  createdAt: string;
  mergedAt?: string;
  closedAt?: string;
  mergeCommitSha?: string;
  /** Set when it merged: the commits it brought and its head then. */
  mergedCommits?: string[];
  mergedHead?: string;
}

/** `rebase` here only fast-forwards: the PR's commits, authors and all, land on the base as they are. */
export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface PullStore {
  readonly pulls: EmulatedPull[];
  routes: Route[];
  /** Merges like the green button: a real commit on the base branch; returns its sha. */
  merge(number: number, method: MergeMethod): Promise<string>;
  /** Closes it unmerged, as a reviewer turning it down does. */
  closeUnmerged(number: number): void;
}

const GITHUB_COMMITTER = { name: 'GitHub', email: 'noreply@github.com' };

export function createPullStore(ctx: EmulatorContext): PullStore {
  const { git, site } = ctx;
  const pulls: EmulatedPull[] = [];
  const stamp = () =>
    ctx
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');

  const find = (number: number) => pulls.find((p) => p.number === number);
  const headSha = async (pr: EmulatedPull) => pr.mergedHead ?? (await git.branch(pr.head)) ?? null;
  const commitsOf = async (pr: EmulatedPull) => {
    if (pr.mergedCommits) return pr.mergedCommits;
    const [base, head] = [await git.branch(pr.base), await git.branch(pr.head)];
    return base && head ? git.commitsBetween(base, head) : [];
  };

  async function pullJson(pr: EmulatedPull, detail: boolean): Promise<Json> {
    const side = async (ref: string, sha: string | null) => ({
      label: `${site.owner}:${ref}`,
      ref,
      sha,
      user: userJson(site, site.owner, 'Organization'),
      repo: repositoryJson(site),
    });
    const json: Json = {
      url: `${repoApi(site)}/pulls/${pr.number}`,
      id: idOf(`pull/${pr.number}`),
      node_id: `PR_${pr.number}`,
      html_url: `${repoWeb(site)}/pull/${pr.number}`,
      issue_url: `${repoApi(site)}/issues/${pr.number}`,
      number: pr.number,
      state: pr.state,
      locked: false,
      title: pr.title,
      user: userJson(site, pr.user),
      body: pr.body,
      labels: pr.labels.map((name) => labelJson(name)),
      created_at: pr.createdAt,
      updated_at: pr.mergedAt ?? pr.createdAt,
      closed_at: pr.closedAt ?? pr.mergedAt ?? null,
      merged_at: pr.mergedAt ?? null,
      merge_commit_sha: pr.mergeCommitSha ?? null,
      draft: pr.draft,
      head: await side(pr.head, await headSha(pr)),
      base: await side(pr.base, (await git.branch(pr.base)) ?? null),
      author_association: 'MEMBER',
    };
    // As on GitHub, only the single-PR endpoint says `merged`; lists carry `merged_at` alone.
    if (detail)
      Object.assign(json, {
        merged: pr.merged,
        mergeable: pr.state === 'open' ? true : null,
        commits: (await commitsOf(pr)).length,
      });
    return json;
  }

  function labelJson(name: string): Json {
    return {
      id: idOf(`label/${name}`),
      name,
      color: 'ededed',
      default: false,
      description: null,
      url: `${repoApi(site)}/labels/${encodeURIComponent(name)}`,
    };
  }

  /** `owner:branch`, or a bare branch (the same repository); undefined for another owner's fork. */
  function ownBranch(head: string): string | undefined {
    const colon = head.indexOf(':');
    if (colon < 0) return head;
    return head.slice(0, colon).toLowerCase() === site.owner.toLowerCase() ? head.slice(colon + 1) : undefined;
  }

  async function open(input: Json): Promise<EmulatedPull> {
    const title = str(input.title);
    const head = ownBranch(str(input.head) ?? '');
    const base = str(input.base) ?? '';
    if (!title) throw validationFailed({ resource: 'PullRequest', code: 'missing_field', field: 'title' });
    const [headSha, baseSha] = [head ? await git.branch(head) : undefined, await git.branch(base)];
    if (!headSha) throw validationFailed({ resource: 'PullRequest', field: 'head', code: 'invalid' });
    if (!baseSha) throw validationFailed({ resource: 'PullRequest', field: 'base', code: 'invalid' });
    if (pulls.some((p) => p.state === 'open' && p.head === head && p.base === base)) {
      throw validationFailed({
        resource: 'PullRequest',
        code: 'custom',
        message: `A pull request already exists for ${site.owner}:${head}.`,
      });
    }
    if ((await git.commitsBetween(baseSha, headSha)).length === 0) {
      throw validationFailed({
        resource: 'PullRequest',
        code: 'custom',
        message: `No commits between ${base} and ${head}`,
      });
    }
    const pr: EmulatedPull = {
      number: pulls.length + 1,
      title,
      body: str(input.body) ?? null,
      head: head!,
      base,
      draft: input.draft === true,
      state: 'open',
      merged: false,
      labels: [],
      user: ctx.user,
      createdAt: stamp(),
    };
    pulls.push(pr);
    return pr;
  }

  async function list(query: URLSearchParams): Promise<EmulatedPull[]> {
    const state = query.get('state') ?? 'open';
    const head = query.get('head');
    const base = query.get('base');
    // GitHub ignores a `head` that is not `owner:branch` and lists every PR: a client bug this keeps visible.
    const headBranch = head?.includes(':') ? (ownBranch(head) ?? '\0') : undefined;
    return pulls.filter(
      (p) =>
        (state === 'all' || p.state === state) &&
        (headBranch === undefined || p.head === headBranch) &&
        (!base || p.base === base),
    );
  }

  /** Like GitHub: a commit on the default branch gives the PR that merged it; elsewhere open ones too. */
  async function ofCommit(sha: string): Promise<EmulatedPull[]> {
    if ((await git.typeOf(sha)) !== 'commit') throw new ApiError(422, `No commit found for SHA: ${sha}`);
    const defaultHead = await git.branch(site.defaultBranch);
    const onDefault = defaultHead !== undefined && (await git.isAncestor(sha, defaultHead));
    const found: EmulatedPull[] = [];
    for (const pr of pulls) {
      if (onDefault && !pr.merged) continue;
      if (pr.mergeCommitSha === sha || (await commitsOf(pr)).includes(sha)) found.push(pr);
    }
    return found;
  }

  async function merge(number: number, method: MergeMethod): Promise<string> {
    const pr = find(number);
    if (pr?.state !== 'open') throw new Error(`PR #${number} is not open`);
    const [base, head] = [await git.branch(pr.base), await git.branch(pr.head)];
    if (!base || !head) throw new Error(`PR #${number}: branch ${pr.base} or ${pr.head} is gone`);
    const commits = await git.commitsBetween(base, head);
    if (method === 'rebase') {
      if (!(await git.isAncestor(base, head)))
        throw new Error(`PR #${number}: the emulator rebases only a branch that starts at ${pr.base}'s head`);
      if (!(await git.setRef(`refs/heads/${pr.base}`, head, base)))
        throw new Error(`PR #${number}: ${pr.base} moved while merging`);
      Object.assign(pr, {
        state: 'closed',
        merged: true,
        mergedAt: stamp(),
        mergeCommitSha: head,
        mergedCommits: commits,
        mergedHead: head,
      });
      return head;
    }
    const tree = await git.mergeTree(base, head);
    if (!tree) throw new Error(`PR #${number} does not merge cleanly`);
    const committer = { ...GITHUB_COMMITTER, date: stamp() };
    const sha = await git.writeCommit(
      method === 'merge'
        ? {
            tree,
            parents: [base, head],
            message: `Merge pull request #${number} from ${site.owner}/${pr.head}\n\n${pr.title}\n`,
            author: ctx.identity(),
            committer,
          }
        : { tree, parents: [base], message: `${pr.title} (#${number})\n`, author: ctx.identity(), committer },
    );
    if (!(await git.setRef(`refs/heads/${pr.base}`, sha, base)))
      throw new Error(`PR #${number}: ${pr.base} moved while merging`);
    Object.assign(pr, {
      state: 'closed',
      merged: true,
      mergedAt: stamp(),
      mergeCommitSha: sha,
      mergedCommits: commits,
      mergedHead: head,
    });
    return sha;
  }

  const existing = (number: string | undefined) => {
    const pr = find(Number(number));
    if (!pr) throw notFound();
    return pr;
  };
  const jsonList = async (found: EmulatedPull[]) => ok(await Promise.all(found.map((p) => pullJson(p, false))));

  const routes: Route[] = [
    { method: 'GET', pattern: /^\/pulls$/, handle: async ({ query }) => jsonList(await list(query)) },
    {
      method: 'POST',
      pattern: /^\/pulls$/,
      handle: async ({ body }) => created(await pullJson(await open(objectBody(body)), true)),
    },
    {
      method: 'GET',
      pattern: /^\/pulls\/(\d+)$/,
      handle: async ({ params: [n] }) => ok(await pullJson(existing(n), true)),
    },
    {
      method: 'POST',
      pattern: /^\/issues\/(\d+)\/labels$/,
      async handle({ params: [n], body }) {
        const pr = existing(n);
        const given = Array.isArray(body) ? body : objectBody(body).labels;
        const names = Array.isArray(given)
          ? given.map((l) => (typeof l === 'string' ? l : str((l as Json)?.name)))
          : [];
        if (names.length === 0 || names.some((name) => !name)) {
          throw validationFailed({ resource: 'Label', code: 'invalid', field: 'labels' });
        }
        for (const name of names as string[]) if (!pr.labels.includes(name)) pr.labels.push(name);
        return ok(pr.labels.map((name) => labelJson(name)));
      },
    },
    {
      method: 'GET',
      pattern: /^\/commits\/([^/]+)\/pulls$/,
      handle: async ({ params: [sha] }) => jsonList(await ofCommit(sha!)),
    },
  ];

  function closeUnmerged(number: number): void {
    const pr = find(number);
    if (pr?.state !== 'open') throw new Error(`PR #${number} is not open`);
    Object.assign(pr, { state: 'closed', closedAt: stamp() });
  }

  return { pulls, routes, merge, closeUnmerged };
}
