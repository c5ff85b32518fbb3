/** What every route handler gets, and the table shape the server dispatches on. */
import type { GitObjects, Identity } from './git-objects.js';
import type { Answer } from './http.js';
import type { Site } from './shapes.js';

export interface EmulatorContext {
  git: GitObjects;
  site: Site;
  now: () => Date;
  /** The login the tokens belong to: PR author, default commit author. */
  user: string;
  identity(): Identity;
}

export interface RouteRequest {
  /** The pattern's capture groups, URL-decoded. */
  params: string[];
  query: URLSearchParams;
  body: unknown;
}

/** `pattern` matches the path after `/repos/:owner/:repo`. */
export interface Route {
  method: string;
  pattern: RegExp;
  handle(request: RouteRequest): Promise<Answer>;
}

export function identityOf(ctx: Pick<EmulatorContext, 'now' | 'user'>): Identity {
  return {
    name: ctx.user,
    email: `${ctx.user}@users.noreply.github.com`,
    date: ctx
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z'),
  };
}
