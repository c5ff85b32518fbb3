/** JSON in GitHub's shapes (the fields clients read, plus the URLs), built from the emulator's state. */
import type { CommitObject, Identity } from './git-objects.js';
import type { Json } from './http.js';

/** Where the emulated repository lives: API URLs point at the emulator, web URLs at `webUrl`. */
export interface Site {
  apiUrl: string;
  webUrl: string;
  owner: string;
  repo: string;
  defaultBranch: string;
}

export const repoApi = (site: Site) => `${site.apiUrl}/repos/${site.owner}/${site.repo}`;
export const repoWeb = (site: Site) => `${site.webUrl}/${site.owner}/${site.repo}`;

export function userJson(site: Site, login: string, type: 'User' | 'Bot' | 'Organization' = 'User'): Json {
  return { login, id: idOf(login), type, html_url: `${site.webUrl}/${login}`, url: `${site.apiUrl}/users/${login}` };
}

export function repositoryJson(site: Site): Json {
  return {
    id: idOf(`${site.owner}/${site.repo}`),
    node_id: nodeId('R', `${site.owner}/${site.repo}`),
    name: site.repo,
    full_name: `${site.owner}/${site.repo}`,
    owner: userJson(site, site.owner, 'Organization'),
    private: true,
    html_url: repoWeb(site),
    url: repoApi(site),
    clone_url: `${repoWeb(site)}.git`,
    default_branch: site.defaultBranch,
    permissions: { admin: false, push: true, pull: true },
  };
}

export function refJson(site: Site, ref: string, sha: string): Json {
  return {
    ref,
    node_id: nodeId('REF', ref),
    url: `${repoApi(site)}/git/${ref}`,
    object: { sha, type: 'commit', url: `${repoApi(site)}/git/commits/${sha}` },
  };
}

export function blobJson(site: Site, sha: string): Json {
  return { sha, url: `${repoApi(site)}/git/blobs/${sha}` };
}

const identityJson = (who: Identity): Json => ({ name: who.name, email: who.email, date: who.date });

export function gitCommitJson(site: Site, commit: CommitObject): Json {
  return {
    sha: commit.sha,
    node_id: nodeId('C', commit.sha),
    url: `${repoApi(site)}/git/commits/${commit.sha}`,
    html_url: `${repoWeb(site)}/commit/${commit.sha}`,
    author: identityJson(commit.author),
    committer: identityJson(commit.committer),
    message: commit.message.replace(/\n$/, ''),
    tree: { sha: commit.tree, url: `${repoApi(site)}/git/trees/${commit.tree}` },
    parents: commit.parents.map((sha) => ({
      sha,
      url: `${repoApi(site)}/git/commits/${sha}`,
      html_url: `${repoWeb(site)}/commit/${sha}`,
    })),
    verification: { verified: false, reason: 'unsigned', signature: null, payload: null },
  };
}

/** GitHub's contents API wraps base64 at 60 characters, with a trailing newline. */
export function base64Lines(bytes: Buffer): string {
  const text = bytes.toString('base64');
  return `${text.match(/.{1,60}/g)?.join('\n') ?? ''}\n`;
}

/** Stable small numbers and node ids derived from names: the same object gets the same id every time. */
export function idOf(name: string): number {
  let hash = 7;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 1_000_000_007;
  return hash;
}

function nodeId(kind: string, name: string): string {
  return `${kind}_${Buffer.from(name).toString('base64url')}`;
}
