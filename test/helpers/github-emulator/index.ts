/**
 * A GitHub REST API stand-in on a real loopback port, serving one repository that is a real bare git
 * repository on disk: blobs, trees, commits and refs it is asked for are written there with `git`, so a
 * `file://` clone of it sees them. Pull requests live in memory; `merge()` makes a real merge commit.
 * Every repository call needs a configured token or an installation token issued to the configured App.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRaw } from '../slack-emulator/read-body.js';
import { createAuth, type AuthKind, type EmulatedApp } from './auth.js';
import { gitObjects } from './git-objects.js';
import { gitRoutes } from './git-routes.js';
import { ApiError, errorBody, notFound, type Answer } from './http.js';
import { createPullStore, type EmulatedPull, type MergeMethod } from './pulls.js';
import { identityOf, type EmulatorContext, type Route } from './routes.js';
import type { Site } from './shapes.js';

export type { AuthKind, EmulatedApp, EmulatedPull, MergeMethod };

export interface GitHubEmulatorOptions {
  /** The bare repository to serve, e.g. `join(testRepo.dir, 'origin.git')`. */
  repoDir: string;
  owner?: string;
  repo?: string;
  /** Tokens accepted as `token X` / `Bearer X`; default one, `emulator.token`. */
  tokens?: string[];
  /** A GitHub App that may get installation tokens. */
  app?: EmulatedApp;
  defaultBranch?: string;
  /** Base of `html_url`s. */
  webUrl?: string;
  /** Serves the API under a path, as GitHub Enterprise Server does (`/api/v3`). */
  basePath?: string;
  /** The login the tokens belong to. */
  user?: string;
  now?: () => Date;
}

/** One request as the emulator saw it: never the Authorization header, only how it authenticated. */
export interface RecordedCall {
  method: string;
  /** URL-decoded, without `basePath`: `/repos/acme/infra/git/refs/heads/driftgate/x`. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
  auth: AuthKind;
}

export interface FailOptions {
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  /** A 403 (or the given status) saying "You have exceeded a secondary rate limit", with Retry-After. */
  secondaryRateLimit?: boolean;
  /** The primary limit: `x-ratelimit-remaining: 0` and a reset `retryAfter` seconds ahead. */
  primaryRateLimit?: boolean;
  body?: unknown;
}

export interface GitHubEmulator {
  /** For GITHUB_API_URL: `http://127.0.0.1:<port>` (plus `basePath`). */
  readonly apiUrl: string;
  /** The first accepted token. */
  readonly token: string;
  readonly owner: string;
  readonly repo: string;
  /** Every request so far, in arrival order; with `method`, only those. */
  calls(method?: string): RecordedCall[];
  /** Pull requests as they are now, by number. */
  pulls(): EmulatedPull[];
  /** The next `count` requests (whatever they are) answer `status`. */
  failNext(count: number, status: number, options?: FailOptions): void;
  merge(number: number, options: { method: MergeMethod }): Promise<string>;
  /** Closes a PR without merging it. */
  closeUnmerged(number: number): void;
  /** Installation tokens issued so far. */
  issuedTokens(): string[];
  close(): Promise<void>;
}

interface Scripted {
  status: number;
  options: FailOptions;
}

export async function startGitHubEmulator(options: GitHubEmulatorOptions): Promise<GitHubEmulator> {
  const owner = options.owner ?? 'acme';
  const repo = options.repo ?? 'infrastructure';
  const tokens = options.tokens ?? [`ghp_emulator${randomUUID().replaceAll('-', '')}`];
  const basePath = (options.basePath ?? '').replace(/\/$/, '');
  const now = options.now ?? (() => new Date());
  const auth = createAuth({ tokens, now, ...(options.app ? { app: options.app } : {}) });
  const recorded: RecordedCall[] = [];
  const script: Scripted[] = [];
  const site: Site = {
    apiUrl: '',
    webUrl: options.webUrl ?? 'https://github.com',
    owner,
    repo,
    defaultBranch: options.defaultBranch ?? 'main',
  };
  const user = options.user ?? 'driftgate-bot';
  const ctx: EmulatorContext = {
    git: gitObjects(options.repoDir),
    site,
    now,
    user,
    identity: () => identityOf({ now, user }),
  };
  const store = createPullStore(ctx);
  const routes: Route[] = [...gitRoutes(ctx), ...store.routes];

  async function route(
    method: string,
    path: string,
    query: URLSearchParams,
    body: unknown,
    authorization: string | undefined,
  ): Promise<Answer> {
    const token = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (token && method === 'POST') return auth.issueInstallationToken(authorization, token[1]!);
    const inRepo = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
    if (!inRepo) throw notFound();
    auth.requireToken(authorization);
    if (inRepo[1]!.toLowerCase() !== owner.toLowerCase() || inRepo[2]!.toLowerCase() !== repo.toLowerCase())
      throw notFound();
    const rest = inRepo[3] ?? '';
    for (const r of routes) {
      const match = r.method === method ? r.pattern.exec(rest) : null;
      if (match) return r.handle({ params: match.slice(1).map((p) => p ?? ''), query, body });
    }
    throw notFound();
  }

  function scriptedAnswer({ status, options: o }: Scripted): Answer {
    const headers: Record<string, string> = {};
    const wait = o.retryAfter ?? 1;
    let message = status >= 500 ? 'Server Error' : 'Scripted failure';
    if (o.secondaryRateLimit) {
      message = 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.';
      headers['retry-after'] = String(wait);
    } else if (o.primaryRateLimit) {
      message = 'API rate limit exceeded for installation.';
      Object.assign(headers, {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.ceil(now().getTime() / 1000) + wait),
      });
    } else if (o.retryAfter !== undefined) {
      headers['retry-after'] = String(o.retryAfter);
    }
    return { status, body: o.body ?? errorBody(status, message), headers };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://github.test');
    const method = req.method ?? 'GET';
    const raw = (await readRaw(req)).toString('utf8');
    const query = url.searchParams;
    let path = url.pathname;
    let body: unknown = raw;
    let answer: Answer;
    try {
      if (basePath && !path.startsWith(`${basePath}/`)) throw notFound();
      path = decodePath(path.slice(basePath.length));
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        throw new ApiError(400, 'Problems parsing JSON');
      }
      const scripted = script.shift();
      answer = scripted ? scriptedAnswer(scripted) : await route(method, path, query, body, req.headers.authorization);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      answer = err.answer();
    }
    recorded.push({
      method,
      path,
      query: Object.fromEntries(query),
      body,
      status: answer.status,
      auth: auth.kindOf(req.headers.authorization),
    });
    send(res, answer);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, { status: 500, body: { message: `emulator bug: ${String(err)}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  site.apiUrl = `http://127.0.0.1:${port}${basePath}`;

  return {
    apiUrl: site.apiUrl,
    token: tokens[0]!,
    owner,
    repo,
    calls: (method) => recorded.filter((c) => method === undefined || c.method === method),
    pulls: () => store.pulls.map((p) => ({ ...p, labels: [...p.labels] })),
    failNext(count, status, failOptions = {}) {
      for (let i = 0; i < count; i++) script.push({ status, options: failOptions });
    },
    merge: (number, { method }) => store.merge(number, method),
    closeUnmerged: (number) => store.closeUnmerged(number),
    issuedTokens: () => auth.issued(),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Octokit sends `heads/a/b` as `heads%2Fa%2Fb`; routes match the decoded path, as GitHub does. */
function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    throw new ApiError(400, 'Invalid path');
  }
}

function send(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-github-request-id': randomUUID(),
    'x-github-api-version-selected': '2022-11-28',
    ...answer.headers,
  });
  res.end(JSON.stringify(answer.body));
}
