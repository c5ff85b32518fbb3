import { z } from 'zod';
import { ExternalServiceError } from '../../domain/errors.js';
import type { GitHubRepository } from '../../ports/github.js';
import type { GitHubAuth } from './env.js';

/** A GitHub API call failed. The message is already masked: no token or key reaches it. */
export class GitHubError extends ExternalServiceError {
  constructor(
    /** What driftgate was doing, e.g. `create branch driftgate/x in acme/infra`. */
    readonly operation: string,
    reason: string,
    /** The HTTP status GitHub answered; undefined when it could not be reached. */
    readonly status: number | undefined,
    retriable: boolean,
  ) {
    super('github', `${operation} failed: ${reason}`, retriable);
  }
}

export interface GitHubErrorContext {
  operation: string;
  repo: GitHubRepository;
  apiUrl: string;
  auth: GitHubAuth['type'];
  mask: (text: string) => string;
  /** What else a 404 may mean for this call, e.g. `commit 1a2b3c4 does not exist`. */
  missing?: string;
}

/** The parts of Octokit's RequestError read here; it is not kept as `cause` (it holds the request). */
interface OctokitFailure {
  status: number;
  message: string;
  request?: { url?: string };
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
}

function isOctokitFailure(err: unknown): err is OctokitFailure {
  return err instanceof Error && typeof (err as { status?: unknown }).status === 'number';
}

/** GitHub's own explanation: `message`, plus the `errors` a 422 lists (`No commits between main and x`). */
function githubMessage(data: unknown, fallback: string): string {
  if (typeof data !== 'object' || data === null) return fallback;
  const { message, errors } = data as { message?: unknown; errors?: unknown };
  const details = (Array.isArray(errors) ? errors : [])
    .map((e) =>
      typeof e === 'string'
        ? e
        : [e?.message, e?.field && `${e.field} ${e.code ?? 'invalid'}`].find((x) => typeof x === 'string'),
    )
    .filter((x): x is string => Boolean(x));
  const head = typeof message === 'string' ? message : fallback;
  return details.length ? `${head}: ${details.join('; ')}` : head;
}

const CREDENTIALS = { token: 'GITHUB_TOKEN', app: 'the GitHub App installation (GITHUB_APP_INSTALLATION_ID)' } as const;
const PERMISSIONS = {
  token: 'a token (GITHUB_TOKEN) needs contents:write and pull_requests:write on it',
  app: 'the GitHub App needs Contents and Pull requests read & write, and its installation must include the repository',
} as const;

export function toGitHubError(err: unknown, ctx: GitHubErrorContext): GitHubError {
  if (err instanceof GitHubError) return err;
  const fail = (reason: string, status: number | undefined, retriable: boolean) =>
    new GitHubError(ctx.operation, ctx.mask(reason), status, retriable);
  if (err instanceof z.ZodError) {
    const issue = err.issues[0];
    return fail(
      `GitHub's answer is not what driftgate expects (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'})`,
      undefined,
      false,
    );
  }
  if (!isOctokitFailure(err)) return fail(err instanceof Error ? err.message : String(err), undefined, true);
  const { status } = err;
  // Octokit turns a failed fetch into a 500 without a response; its message is the network error's.
  if (!err.response) return fail(`GitHub API at ${ctx.apiUrl} unreachable: ${err.message}`, undefined, true);

  const said = githubMessage(err.response.data, err.message);
  const headers = err.response.headers ?? {};
  const repo = `${ctx.repo.owner}/${ctx.repo.name}`;
  const tokenRequest = (err.request?.url ?? '').includes('/app/installations/');
  const rateLimited =
    status === 429 ||
    (status === 403 && (headers['retry-after'] !== undefined || headers['x-ratelimit-remaining'] === '0'));

  if (status === 401) {
    return ctx.auth === 'token'
      ? fail(`GitHub refused GITHUB_TOKEN (401 ${said}): it is wrong, expired or revoked`, status, false)
      : fail(
          `GitHub refused the GitHub App credentials (401 ${said}): check GITHUB_APP_ID and that GITHUB_APP_PRIVATE_KEY is a current private key of that App`,
          status,
          false,
        );
  }
  if (rateLimited)
    return fail(`rate limited by GitHub (${status} ${said}), still after retrying; try again later`, status, true);
  if (status === 403)
    return fail(`the credentials lack permission on ${repo} (403 ${said}): ${PERMISSIONS[ctx.auth]}`, status, false);
  if (status === 404 && tokenRequest) {
    return fail(
      `GitHub App installation not found (404): check GITHUB_APP_INSTALLATION_ID is an installation of the App GITHUB_APP_ID`,
      status,
      false,
    );
  }
  if (status === 404) {
    const also = ctx.missing ? `, or ${ctx.missing}` : '';
    return fail(
      `repository ${repo} not found at ${ctx.apiUrl}, or not visible to ${CREDENTIALS[ctx.auth]}${also} (404)`,
      status,
      false,
    );
  }
  if (status === 422) return fail(`GitHub refused it (422): ${said}`, status, false);
  if (status >= 500) return fail(`GitHub answered HTTP ${status} (${said}), still after retrying`, status, true);
  return fail(`GitHub answered HTTP ${status}: ${said}`, status, status === 408);
}

/** GitHub's token formats (classic, fine-grained, OAuth, installation, refresh) and JWTs. */
const TOKEN_SHAPES = /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+)/g;
const PEM_BLOCK = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

/**
 * Takes the configured token or private key out of text, and anything shaped like a GitHub token or a
 * JWT (installation tokens are minted by auth-app and never pass through here by name).
 */
export function secretMask(auth: GitHubAuth): (text: string) => string {
  const secrets =
    auth.type === 'token'
      ? [auth.token]
      : [auth.privateKey, ...auth.privateKey.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'))];
  return (text) =>
    secrets
      .filter((s) => s.length >= 4)
      .reduce((out, s) => out.split(s).join('***'), text)
      .replace(PEM_BLOCK, '[private key]')
      .replace(TOKEN_SHAPES, '***');
}
