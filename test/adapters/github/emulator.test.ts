import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeGitHubFixture, type GitHubFixture } from './github-fixture.js';

let f: GitHubFixture;
beforeEach(async () => {
  f = await makeGitHubFixture();
});
afterEach(() => f.cleanup());

/** One raw REST call to the emulated repository (path after /repos/acme/infrastructure). */
async function api(
  method: string,
  path: string,
  body?: unknown,
  authorization: string | null = `token ${f.emulator.token}`,
) {
  const res = await fetch(`${f.emulator.apiUrl}/repos/acme/infrastructure${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the emulator's JSON answers are read loosely, field by field
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('GitHub emulator: auth and repositories', () => {
  it('answers 401 without or with an unknown token, 404 for other repositories, and records no token', async () => {
    expect(await api('GET', '', undefined, null)).toMatchObject({
      status: 401,
      body: { message: 'Requires authentication' },
    });
    expect(await api('GET', '', undefined, 'token nope')).toMatchObject({
      status: 401,
      body: { message: 'Bad credentials' },
    });
    expect(await api('GET', '', undefined, `Bearer ${f.emulator.token}`)).toMatchObject({
      status: 200,
      body: {
        full_name: 'acme/infrastructure',
        default_branch: 'main',
        html_url: 'https://github.com/acme/infrastructure',
      },
    });
    const other = await fetch(`${f.emulator.apiUrl}/repos/acme/other`, {
      headers: { authorization: `token ${f.emulator.token}` },
    });
    expect(other.status).toBe(404);
    expect(f.emulator.calls().map((c) => c.auth)).toEqual(['none', 'invalid', 'token', 'token']);
    expect(JSON.stringify(f.emulator.calls())).not.toContain(f.emulator.token);
  });
});

describe('GitHub emulator: git data over the real repository', () => {
  it('blobs (utf-8 and base64), a tree on base_tree with nested adds and a delete, a commit, refs', async () => {
    const text = await api('POST', '/git/blobs', { content: 'héllo\n', encoding: 'utf-8' });
    const bytes = await api('POST', '/git/blobs', {
      content: Buffer.from([0, 1, 2, 255]).toString('base64'),
      encoding: 'base64',
    });
    expect(text.status).toBe(201);
    expect(await f.git('cat-file', '-p', text.body.sha)).toBe('héllo');
    expect(await f.git('cat-file', '-s', bytes.body.sha)).toBe('4');

    const baseTree = await f.git('rev-parse', `${f.base}^{tree}`);
    const tree = await api('POST', '/git/trees', {
      base_tree: baseTree,
      tree: [
        { path: 'a/b/c.txt', mode: '100644', type: 'blob', sha: text.body.sha },
        { path: 'bin/run', mode: '100755', type: 'blob', content: '#!/bin/sh\n' },
        { path: 'stacks/web', mode: '040000', type: 'tree', sha: null },
      ],
    });
    expect(tree.status).toBe(201);
    expect((await f.git('ls-tree', '-r', '--name-only', tree.body.sha)).split('\n')).toEqual([
      'README.md',
      'a/b/c.txt',
      'bin/run',
      'stacks/db/main.tf',
    ]);
    expect(await f.git('ls-tree', tree.body.sha, 'bin/run')).toMatch(/^100755 blob/);

    const commit = await api('POST', '/git/commits', {
      message: 'Via the API',
      tree: tree.body.sha,
      parents: [f.base],
      author: { name: 'Grace Hopper', email: 'grace@example.com', date: '2024-06-01T12:00:00Z' },
    });
    expect(commit).toMatchObject({
      status: 201,
      body: { author: { name: 'Grace Hopper', date: '2024-06-01T12:00:00Z' }, committer: { name: 'driftgate-bot' } },
    });
    expect(commit.body.html_url).toBe(`https://github.com/acme/infrastructure/commit/${commit.body.sha}`);
    expect(await api('GET', `/git/commits/${commit.body.sha}`)).toMatchObject({
      body: { message: 'Via the API', tree: { sha: tree.body.sha }, parents: [{ sha: f.base }] },
    });

    expect(await api('POST', '/git/refs', { ref: 'refs/heads/feature/deep/name', sha: commit.body.sha })).toMatchObject(
      { status: 201 },
    );
    expect(await api('GET', '/git/ref/heads/feature/deep/name')).toMatchObject({
      body: { object: { sha: commit.body.sha } },
    });
    expect(await api('GET', '/git/ref/heads/feature%2Fdeep%2Fname')).toMatchObject({ status: 200 });
    expect(await api('GET', '/git/ref/heads/missing')).toMatchObject({ status: 404, body: { message: 'Not Found' } });
    expect(await f.git('rev-parse', 'feature/deep/name')).toBe(commit.body.sha);
  });

  it("GitHub's 422s for refs and trees", async () => {
    const head = f.base;
    expect(await api('POST', '/git/refs', { ref: 'refs/heads/main', sha: head })).toMatchObject({
      status: 422,
      body: { message: 'Reference already exists' },
    });
    expect(await api('POST', '/git/refs', { ref: 'heads/x', sha: head })).toMatchObject({ status: 422 });
    expect(await api('POST', '/git/refs', { ref: 'refs/heads/x', sha: 'f'.repeat(40) })).toMatchObject({
      status: 422,
      body: { message: 'Object does not exist' },
    });

    const side = await f.testRepo.commit({ 'side.txt': 's\n' }, 'Side');
    await f.git('update-ref', 'refs/heads/behind', head);
    // main moved on to `side`; moving `main` back to its parent is not a fast-forward.
    expect(await api('PATCH', '/git/refs/heads/main', { sha: head })).toMatchObject({
      status: 422,
      body: { message: 'Update is not a fast forward' },
    });
    expect(await api('PATCH', '/git/refs/heads/behind', { sha: side })).toMatchObject({ status: 200 });
    expect(await api('PATCH', '/git/refs/heads/main', { sha: head, force: true })).toMatchObject({ status: 200 });
    expect(await f.git('rev-parse', 'main')).toBe(head);
    expect(await api('PATCH', '/git/refs/heads/nope', { sha: head })).toMatchObject({
      status: 422,
      body: { message: 'Reference does not exist' },
    });

    expect(await api('POST', '/git/trees', { base_tree: head, tree: [] })).toMatchObject({
      status: 422,
      body: { message: 'base_tree is not a valid tree oid' },
    });
    const bad = [
      { path: '../x', mode: '100644', type: 'blob', content: 'x' },
      { path: 'x', mode: '100600', type: 'blob', content: 'x' },
      { path: 'x', mode: '100644', type: 'blob', sha: 'e'.repeat(40) },
      { path: 'x', mode: '100644', type: 'blob' },
    ];
    for (const entry of bad) expect((await api('POST', '/git/trees', { tree: [entry] })).status).toBe(422);
    expect(await api('POST', '/git/commits', { message: 'm', tree: 'e'.repeat(40), parents: [] })).toMatchObject({
      status: 422,
      body: { message: 'Tree SHA does not exist' },
    });
  });

  it('contents at a ref, base64 as GitHub sends it', async () => {
    const file = await api('GET', '/contents/stacks/db/main.tf?ref=main');
    expect(file.body).toMatchObject({ type: 'file', encoding: 'base64', path: 'stacks/db/main.tf', name: 'main.tf' });
    expect(Buffer.from(file.body.content, 'base64').toString('utf8')).toBe('resource "terraform_data" "db" {}\n');
    expect(
      (await api('GET', `/contents/stacks?ref=${f.base}`)).body.map(
        (e: { name: string; type: string }) => `${e.type}:${e.name}`,
      ),
    ).toEqual(['dir:db', 'dir:web']);
    expect((await api('GET', '/contents/nope.tf')).status).toBe(404);
    expect(await api('GET', '/contents/README.md?ref=no-such-branch')).toMatchObject({
      status: 404,
      body: { message: 'No commit found for the ref no-such-branch' },
    });
  });
});

describe('GitHub emulator: pulls and test controls', () => {
  it('ignores a head filter without owner, like GitHub; failNext answers in order and is recorded', async () => {
    await f.git('update-ref', 'refs/heads/one', await f.testRepo.commit({ 'one.txt': '1\n' }, 'One'));
    await f.git('update-ref', 'refs/heads/main', f.base, await f.git('rev-parse', 'main'));
    const opened = await api('POST', '/pulls', { title: 'One', head: 'one', base: 'main', draft: true });
    expect(opened).toMatchObject({
      status: 201,
      body: {
        number: 1,
        draft: true,
        merged: false,
        html_url: 'https://github.com/acme/infrastructure/pull/1',
        head: { ref: 'one', label: 'acme:one' },
      },
    });
    expect((await api('GET', '/pulls?head=other')).body).toHaveLength(1);
    expect((await api('GET', '/pulls?head=acme:other')).body).toHaveLength(0);
    const listed = (await api('GET', '/pulls?head=acme:one')).body[0];
    expect(listed).not.toHaveProperty('merged');
    expect(await api('GET', '/pulls/2')).toMatchObject({ status: 404 });

    f.emulator.failNext(1, 502);
    f.emulator.failNext(1, 403, { secondaryRateLimit: true, retryAfter: 7 });
    const first = await fetch(`${f.emulator.apiUrl}/repos/acme/infrastructure`);
    const second = await fetch(`${f.emulator.apiUrl}/repos/acme/infrastructure`);
    expect([first.status, second.status]).toEqual([502, 403]);
    expect(second.headers.get('retry-after')).toBe('7');
    expect(((await second.json()) as { message: string }).message).toMatch(/^You have exceeded a secondary rate limit/);
    expect(
      f.emulator
        .calls()
        .slice(-2)
        .map((c) => c.status),
    ).toEqual([502, 403]);
  });
});
