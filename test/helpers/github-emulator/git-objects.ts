/**
 * The emulator's git: real objects and refs in the bare repository, made with the real `git`, so what the
 * emulator writes is what a `file://` clone of the same repository sees.
 */
import { execa } from 'execa';

export const ZERO_SHA = '0'.repeat(40);
const SHA = /^[0-9a-f]{40}$/;

/** Who the emulator says made a commit when the request names no author. */
export interface Identity {
  name: string;
  email: string;
  date: string;
}

export interface CommitObject {
  sha: string;
  tree: string;
  parents: string[];
  author: Identity;
  committer: Identity;
  message: string;
}

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface GitObjects {
  readonly dir: string;
  run(
    args: string[],
    options?: { input?: string | Buffer; env?: Record<string, string> },
  ): Promise<{ ok: boolean; stdout: string; stderr: string }>;
  /** `rev-parse --verify` of a revision (`main`, `<sha>:path`), undefined when it names nothing. */
  resolve(spec: string): Promise<string | undefined>;
  /** The object's type, or undefined when the repository has no such object. */
  typeOf(sha: string): Promise<ObjectType | undefined>;
  writeBlob(bytes: Buffer): Promise<string>;
  readBlob(spec: string): Promise<Buffer>;
  commit(sha: string): Promise<CommitObject | undefined>;
  writeCommit(input: {
    tree: string;
    parents: string[];
    message: string;
    author?: Partial<Identity>;
    committer: Identity;
  }): Promise<string>;
  /** A branch's head, undefined when it does not exist. */
  branch(name: string): Promise<string | undefined>;
  /** Moves `ref` to `sha` if it still points at `expected` (ZERO_SHA: if it does not exist yet). */
  setRef(ref: string, sha: string, expected: string): Promise<boolean>;
  isRefName(ref: string): Promise<boolean>;
  isAncestor(ancestor: string, of: string): Promise<boolean>;
  /** `rev-list from..to`: the commits in `to` and not in `from`, newest first. */
  commitsBetween(from: string, to: string): Promise<string[]>;
  /** The tree of merging `theirs` into `ours`; undefined on a conflict. */
  mergeTree(ours: string, theirs: string): Promise<string | undefined>;
}

export function gitObjects(dir: string): GitObjects {
  const baseEnv = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    GIT_DIR: dir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };

  const run: GitObjects['run'] = async (args, options = {}) => {
    const result = await execa('git', args, {
      cwd: dir,
      env: { ...baseEnv, ...options.env },
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    });
    return { ok: result.exitCode === 0, stdout: String(result.stdout), stderr: String(result.stderr) };
  };
  const out = async (args: string[], input?: string | Buffer) => {
    const result = await run(args, input === undefined ? {} : { input });
    if (!result.ok) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout.trim();
  };

  const typeOf = async (sha: string) => {
    if (!SHA.test(sha)) return undefined;
    const result = await run(['cat-file', '-t', sha]);
    return result.ok ? (result.stdout.trim() as ObjectType) : undefined;
  };

  const resolve = async (spec: string) => {
    if (spec.startsWith('-')) return undefined;
    const result = await run(['rev-parse', '--verify', '--quiet', spec]);
    return result.ok ? result.stdout.trim() : undefined;
  };

  return {
    dir,
    run,
    resolve,
    typeOf,
    writeBlob: (bytes) => out(['hash-object', '-w', '--stdin'], bytes),
    async readBlob(spec) {
      const result = await execa('git', ['cat-file', 'blob', spec], {
        cwd: dir,
        env: baseEnv,
        extendEnv: false,
        encoding: 'buffer',
        stdin: 'ignore',
        stripFinalNewline: false,
      });
      return Buffer.from(result.stdout);
    },
    async commit(sha) {
      if ((await typeOf(sha)) !== 'commit') return undefined;
      return parseCommit(sha, await out(['cat-file', 'commit', sha]));
    },
    writeCommit({ tree, parents, message, author, committer }) {
      const who = { ...committer, ...author };
      const env = {
        GIT_AUTHOR_NAME: who.name,
        GIT_AUTHOR_EMAIL: who.email,
        GIT_AUTHOR_DATE: who.date,
        GIT_COMMITTER_NAME: committer.name,
        GIT_COMMITTER_EMAIL: committer.email,
        GIT_COMMITTER_DATE: committer.date,
      };
      const args = ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-F', '-'];
      return run(args, { input: message, env }).then((r) => {
        if (!r.ok) throw new Error(`git commit-tree failed: ${r.stderr}`);
        return r.stdout.trim();
      });
    },
    branch: (name) => resolve(`refs/heads/${name}^{commit}`),
    async setRef(ref, sha, expected) {
      return (await run(['update-ref', ref, sha, expected])).ok;
    },
    async isRefName(ref) {
      return (await run(['check-ref-format', ref])).ok;
    },
    async isAncestor(ancestor, of) {
      return (await run(['merge-base', '--is-ancestor', ancestor, of])).ok;
    },
    async commitsBetween(from, to) {
      const text = await out(['rev-list', `${from}..${to}`]);
      return text ? text.split('\n') : [];
    },
    async mergeTree(ours, theirs) {
      const result = await run(['merge-tree', '--write-tree', ours, theirs]);
      return result.ok ? result.stdout.split('\n')[0]!.trim() : undefined;
    },
  };
}

/** `git cat-file commit` text -> its fields; the header ends at the first empty line. */
function parseCommit(sha: string, text: string): CommitObject {
  const end = text.indexOf('\n\n');
  const header = (end < 0 ? text : text.slice(0, end)).split('\n');
  const field = (name: string) => header.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));
  return {
    sha,
    tree: field('tree')[0]!,
    parents: field('parent'),
    author: parseIdentity(field('author')[0]!),
    committer: parseIdentity(field('committer')[0]!),
    message: end < 0 ? '' : text.slice(end + 2),
  };
}

/** `Ada Lovelace <ada@example.com> 1714557600 +0000` -> name, email and an ISO date (UTC). */
function parseIdentity(line: string): Identity {
  const match = /^(.*) <([^>]*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!match) return { name: line, email: '', date: new Date(0).toISOString() };
  return {
    name: match[1]!,
    email: match[2]!,
    date: new Date(Number(match[3]) * 1000).toISOString().replace('.000Z', 'Z'),
  };
}
