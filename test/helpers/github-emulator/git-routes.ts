/** The repository, git data (refs, blobs, trees, commits) and contents endpoints, over the real repository. */
import { ZERO_SHA } from './git-objects.js';
import { ApiError, created, notFound, objectBody, ok, str, unprocessable, type Json } from './http.js';
import type { EmulatorContext, Route } from './routes.js';
import { base64Lines, blobJson, gitCommitJson, refJson, repoApi, repoWeb, repositoryJson } from './shapes.js';
import { buildTree } from './tree-builder.js';

export function gitRoutes(ctx: EmulatorContext): Route[] {
  const { git, site } = ctx;

  async function treeJson(sha: string): Promise<Json> {
    const listed = await git.run(['ls-tree', '-z', sha]);
    const tree = listed.stdout
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const [meta, path] = line.split('\t') as [string, string];
        const [mode, type, entrySha] = meta.split(' ') as [string, string, string];
        return { path, mode, type, sha: entrySha, url: `${repoApi(site)}/git/${type}s/${entrySha}` };
      });
    return { sha, url: `${repoApi(site)}/git/trees/${sha}`, tree, truncated: false };
  }

  async function moveRef(branch: string, body: Json): Promise<Json> {
    const current = await git.branch(branch);
    if (!current) throw unprocessable('Reference does not exist');
    const sha = str(body.sha);
    if (!sha || (await git.typeOf(sha)) !== 'commit') throw unprocessable('Object does not exist');
    if (body.force !== true && !(await git.isAncestor(current, sha)))
      throw unprocessable('Update is not a fast forward');
    if (!(await git.setRef(`refs/heads/${branch}`, sha, current)))
      throw new ApiError(409, 'Reference cannot be updated');
    return refJson(site, `refs/heads/${branch}`, sha);
  }

  async function contents(path: string, ref: string): Promise<Json | Json[]> {
    const commit = await git.resolve(`${ref}^{commit}`);
    if (!commit) throw new ApiError(404, `No commit found for the ref ${ref}`);
    const spec = path ? `${commit}:${path}` : `${commit}^{tree}`;
    const sha = await git.resolve(spec);
    const type = sha && (await git.typeOf(sha));
    if (!sha || !type) throw notFound();
    const entry = (name: string, entryPath: string, entrySha: string, kind: string, size: number): Json => ({
      type: kind,
      name,
      path: entryPath,
      sha: entrySha,
      size,
      url: `${repoApi(site)}/contents/${entryPath}?ref=${ref}`,
      html_url: `${repoWeb(site)}/${kind === 'dir' ? 'tree' : 'blob'}/${ref}/${entryPath}`,
      git_url: `${repoApi(site)}/git/${kind === 'dir' ? 'trees' : 'blobs'}/${entrySha}`,
    });
    if (type === 'tree') {
      const listed = (await treeJson(sha)).tree as { path: string; type: string; sha: string }[];
      return listed.map((e) =>
        entry(e.path, path ? `${path}/${e.path}` : e.path, e.sha, e.type === 'tree' ? 'dir' : 'file', 0),
      );
    }
    const bytes = await git.readBlob(sha);
    return {
      ...entry(path.split('/').pop()!, path, sha, 'file', bytes.length),
      encoding: 'base64',
      content: base64Lines(bytes),
    };
  }

  return [
    { method: 'GET', pattern: /^$/, handle: async () => ok(repositoryJson(site)) },
    {
      method: 'GET',
      pattern: /^\/git\/ref\/heads\/(.+)$/,
      async handle({ params: [branch] }) {
        const sha = await git.branch(branch!);
        if (!sha) throw notFound();
        return ok(refJson(site, `refs/heads/${branch}`, sha));
      },
    },
    {
      method: 'GET',
      pattern: /^\/git\/commits\/([^/]+)$/,
      async handle({ params: [sha] }) {
        const commit = await git.commit(sha!);
        if (!commit) throw notFound();
        return ok(gitCommitJson(site, commit));
      },
    },
    {
      method: 'POST',
      pattern: /^\/git\/blobs$/,
      async handle({ body }) {
        const { content, encoding = 'utf-8' } = objectBody(body);
        if (typeof content !== 'string') throw unprocessable('Invalid request.\n\n"content" wasn\'t supplied.');
        if (encoding !== 'utf-8' && encoding !== 'base64') throw unprocessable(`encoding must be utf-8 or base64`);
        const bytes = Buffer.from(content, encoding === 'base64' ? 'base64' : 'utf8');
        return created(blobJson(site, await git.writeBlob(bytes)));
      },
    },
    {
      method: 'POST',
      pattern: /^\/git\/trees$/,
      async handle({ body }) {
        const { base_tree, tree } = objectBody(body);
        return created(await treeJson(await buildTree(git, base_tree, tree)));
      },
    },
    {
      method: 'POST',
      pattern: /^\/git\/commits$/,
      async handle({ body }) {
        const input = objectBody(body);
        const message = str(input.message);
        const tree = str(input.tree);
        const parents = input.parents ?? [];
        if (message === undefined) throw unprocessable('Invalid request.\n\n"message" wasn\'t supplied.');
        if (!tree || (await git.typeOf(tree)) !== 'tree') throw unprocessable('Tree SHA does not exist');
        if (!Array.isArray(parents) || parents.some((p) => typeof p !== 'string'))
          throw unprocessable('Invalid request.\n\n"parents" must be an array of shas.');
        for (const parent of parents as string[]) {
          if ((await git.typeOf(parent)) !== 'commit')
            throw unprocessable('Parent SHA does not exist or is not a commit object');
        }
        const author = typeof input.author === 'object' && input.author !== null ? (input.author as Json) : undefined;
        const sha = await git.writeCommit({
          tree,
          parents: parents as string[],
          message,
          committer: ctx.identity(),
          ...(author ? { author: { ...ctx.identity(), ...pickStrings(author, ['name', 'email', 'date']) } } : {}),
        });
        return created(gitCommitJson(site, (await git.commit(sha))!));
      },
    },
    {
      method: 'POST',
      pattern: /^\/git\/refs$/,
      async handle({ body }) {
        const { ref, sha } = objectBody(body);
        if (typeof ref !== 'string' || !/^refs\/[^/]+\/.+/.test(ref) || !(await git.isRefName(ref))) {
          throw unprocessable("Reference name must start with 'refs/' and have at least two slashes.");
        }
        if (typeof sha !== 'string' || (await git.typeOf(sha)) !== 'commit')
          throw unprocessable('Object does not exist');
        if (!(await git.setRef(ref, sha, ZERO_SHA))) throw unprocessable('Reference already exists');
        return created(refJson(site, ref, sha));
      },
    },
    {
      method: 'PATCH',
      pattern: /^\/git\/refs\/heads\/(.+)$/,
      handle: async ({ params: [branch], body }) => ok(await moveRef(branch!, objectBody(body))),
    },
    {
      method: 'GET',
      pattern: /^\/contents(?:\/(.*))?$/,
      handle: async ({ params: [path], query }) =>
        ok(await contents((path ?? '').replace(/\/$/, ''), query.get('ref') ?? site.defaultBranch)),
    },
  ];
}

function pickStrings(from: Json, keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.filter((k) => typeof from[k] === 'string').map((k) => [k, from[k] as string]));
}
