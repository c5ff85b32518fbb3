/**
 * Finds every occurrence of a set of secrets in a text and masks it. A regular expression built from
 * the secrets was tried first: V8 refuses large ones ("Regular expression too large") and its error
 * message quotes the pattern, i.e. the secrets. Here nothing can throw with a secret in its message:
 * a few secrets are searched with indexOf (V8's string search is the fastest scan there is), many with
 * Aho-Corasick, whose cost stays linear in the text whatever the number of secrets.
 *
 * Overlapping occurrences are masked as their union: with secrets `abcdef` and `defghi`, the text
 * `abcdefghi` becomes one placeholder; a leftmost-longest rule would leave `ghi` in clear.
 */
export interface SecretMatcher {
  replaceAll(text: string, placeholder: string): string;
}

/** Above this many secrets one automaton pass beats one indexOf scan per secret. */
const INDEX_OF_LIMIT = 16;

/** Returns [start, end) pairs of every occurrence, in any order, or undefined when there is none. */
type FindRanges = (text: string) => number[] | undefined;

function indexOfFinder(secrets: string[]): FindRanges {
  return (text) => {
    let found: number[] | undefined;
    for (const secret of secrets) {
      for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1))
        (found ??= []).push(at, at + secret.length);
    }
    return found;
  };
}

function automatonFinder(secrets: string[]): FindRanges {
  // Node 0 is the root. Most nodes have one child (the run of a single secret), so edges live in one
  // Map per node only where a node has any; char codes as keys stay small integers.
  const edges: (Map<number, number> | undefined)[] = [undefined];
  const depth: number[] = [0];
  const terminal: boolean[] = [false];
  const startsPattern = new Uint8Array(65536);
  for (const secret of secrets) {
    startsPattern[secret.charCodeAt(0)] = 1;
    let node = 0;
    for (let i = 0; i < secret.length; i++) {
      const ch = secret.charCodeAt(i);
      const map = (edges[node] ??= new Map());
      let child = map.get(ch);
      if (child === undefined) {
        child = depth.length;
        map.set(ch, child);
        edges.push(undefined);
        depth.push(depth[node]! + 1);
        terminal.push(false);
      }
      node = child;
    }
    terminal[node] = true;
  }

  // Failure links breadth-first; `longest[n]` is the longest secret that is a suffix of node n's string.
  const fail = new Int32Array(depth.length);
  const longest = new Int32Array(depth.length);
  const queue = new Int32Array(depth.length);
  let tail = 1;
  for (let head = 0; head < tail; head++) {
    const node = queue[head]!;
    for (const [ch, child] of edges[node] ?? []) {
      let target = 0;
      if (node !== 0) {
        let f = fail[node]!;
        while (f !== 0 && !edges[f]?.has(ch)) f = fail[f]!;
        target = edges[f]?.get(ch) ?? 0;
      }
      fail[child] = target;
      longest[child] = terminal[child] ? depth[child]! : longest[target]!;
      queue[tail++] = child;
    }
  }

  return (text) => {
    let found: number[] | undefined;
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (node === 0 && startsPattern[ch] === 0) continue;
      for (;;) {
        const child = edges[node]?.get(ch);
        if (child !== undefined) {
          node = child;
          break;
        }
        if (node === 0) break;
        node = fail[node]!;
      }
      const length = longest[node]!;
      if (length > 0) (found ??= []).push(i + 1 - length, i + 1);
    }
    return found;
  };
}

/** Replaces the union of the ranges with one placeholder per connected stretch. */
function maskRanges(text: string, placeholder: string, found: number[]): string {
  const order = Array.from({ length: found.length / 2 }, (_, k) => 2 * k).sort((a, b) => found[a]! - found[b]!);
  let out = '';
  let cursor = 0;
  let groupStart = -1;
  let groupEnd = -1;
  for (const k of order) {
    const start = found[k]!;
    const end = found[k + 1]!;
    if (start < groupEnd) {
      groupEnd = Math.max(groupEnd, end);
      continue;
    }
    if (groupEnd >= 0) {
      out += text.slice(cursor, groupStart) + placeholder;
      cursor = groupEnd;
    }
    groupStart = start;
    groupEnd = end;
  }
  return `${out}${text.slice(cursor, groupStart)}${placeholder}${text.slice(groupEnd)}`;
}

export function buildSecretMatcher(secrets: Iterable<string>): SecretMatcher | undefined {
  const list = [...new Set(secrets)].filter((s) => s !== '');
  if (list.length === 0) return undefined;
  const find = list.length <= INDEX_OF_LIMIT ? indexOfFinder(list) : automatonFinder(list);
  return {
    replaceAll(text, placeholder) {
      const found = find(text);
      return found ? maskRanges(text, placeholder, found) : text;
    },
  };
}
