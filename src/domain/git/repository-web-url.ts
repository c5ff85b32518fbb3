/**
 * The web address of a GitHub (or GitHub Enterprise) repository from its clone URL, for links to its
 * commits and pull requests: `https://github.com/o/r.git`, `ssh://git@github.com:22/o/r`,
 * `git@github.com:o/r.git` -> `https://github.com/o/r`. A GitHub Enterprise Server host is told by name
 * (`github.example.com`, `git.github-corp.net`): other hosts (GitLab, Gitea, `file://`) get no links
 * rather than links that would 404.
 */
export function repositoryWebUrl(cloneUrl: string): string | undefined {
  const parsed = parseCloneUrl(cloneUrl.trim());
  if (!parsed || !/(^|[.-])github([.-]|$)/i.test(parsed.host.replace(/:\d+$/, ''))) return undefined;
  const parts = parsed.path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/');
  if (parts.length !== 2 || !parts.every((p) => /^[A-Za-z0-9._-]+$/.test(p) && p !== '.' && p !== '..'))
    return undefined;
  return `https://${parsed.host.toLowerCase()}/${parts.join('/')}`;
}

/** `owner/name` of a GitHub repository from its clone URL; undefined for other hosts. */
export function githubRepositoryName(cloneUrl: string): string | undefined {
  const web = repositoryWebUrl(cloneUrl);
  return web ? new URL(web).pathname.slice(1) : undefined;
}

export const pullRequestUrl = (webUrl: string, prNumber: number) => `${webUrl}/pull/${prNumber}`;
export const commitUrl = (webUrl: string, sha: string) => `${webUrl}/commit/${sha}`;

function parseCloneUrl(url: string): { host: string; path: string } | undefined {
  // scp-like `user@host:owner/repo`: no scheme, a colon before the first slash.
  const scp = /^(?:[^@/\s]+@)?([A-Za-z0-9.-]+):(?!\/\/)(\S+)$/.exec(url);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return { host: scp[1]!, path: scp[2]! };
  try {
    const u = new URL(url);
    if (!['https:', 'http:', 'ssh:', 'git:'].includes(u.protocol) || !u.hostname) return undefined;
    // An https origin keeps its port; an ssh port is not the web server's.
    return { host: u.protocol === 'https:' ? u.host : u.hostname, path: u.pathname };
  } catch {
    return undefined;
  }
}
