import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OTHER_VARIABLES, VARIABLES } from '../../src/config/environment.js';
import { GENERATED_SECTIONS, generatedPart, REGENERATE } from './generated-sections.js';

/**
 * The README is short and the reference lives in docs/: a moved or renamed section must not leave a link,
 * or one of driftgate's own messages ("see docs/production.md: \"Two database roles\""), pointing nowhere.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const ENVIRONMENT_SECTION = GENERATED_SECTIONS.find((s) => s.name === 'environment')!;
const DOCS = ['README.md', 'deploy/README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
const anchorsOf = (file: string): Set<string> => {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
};

const outsideCode = (text: string): string => text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');

const brokenTarget = (from: string, target: string): string | undefined => {
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? from : resolve(dirname(from), path);
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`;
  if (anchor === undefined || statSync(file).isDirectory()) return undefined;
  return anchorsOf(file).has(anchor) ? undefined : `${relative(ROOT, file)} has no heading #${anchor}`;
};

describe('documentation links', () => {
  it.each(DOCS)('every relative link in %s leads to a file and heading that exist', (doc) => {
    const file = join(ROOT, doc);
    const links = [...outsideCode(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    const broken = links
      .filter((t) => !/^[a-z]+:/.test(t))
      .flatMap((t) => {
        const why = brokenTarget(file, t);
        return why ? [`(${t}): ${why}`] : [];
      });
    expect(broken).toEqual([]);
  });

  it('every doc section driftgate names in its own messages and comments exists', () => {
    const sources: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|yaml|yml)$/.test(name)) sources.push(path);
      }
    };
    for (const dir of ['src', 'deploy']) walk(join(ROOT, dir));
    const named = sources.flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(/(docs\/[a-z-]+\.md)(?:[,:]? "([^"]+)")?/g)].map((m) => ({
        where: relative(ROOT, path),
        file: m[1]!,
        section: m[2],
      })),
    );
    expect(named.length).toBeGreaterThan(0);
    const broken = named.filter(({ file, section }) => {
      const target = join(ROOT, file);
      if (!existsSync(target)) return true;
      if (section === undefined) return false;
      const slug = section
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
      return !anchorsOf(target).has(slug);
    });
    expect(broken).toEqual([]);
  });
});

describe('docs/production.md: Environment variables', () => {
  it('names every variable driftgate reads by a fixed name', () => {
    const doc = readFileSync(join(ROOT, 'docs/production.md'), 'utf8');
    const table = generatedPart(doc, ENVIRONMENT_SECTION) ?? '';
    expect(
      table,
      `docs/production.md's table is not what src/config/environment.ts generates: run \`${REGENERATE}\``,
    ).toBe(ENVIRONMENT_SECTION.render());
    const listed = new Set([
      ...Object.keys(VARIABLES),
      ...OTHER_VARIABLES.flatMap((v) => [...v.names.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)),
    ]);
    const read = new Set<string>();
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts')) {
          const text = readFileSync(path, 'utf8');
          for (const m of text.matchAll(/env(?:\.|\[')([A-Z][A-Z0-9_]{2,})/g)) read.add(m[1]!);
          for (const m of text.matchAll(
            /'((?:DRIFTGATE|SLACK|GITHUB|PAGERDUTY|DATABASE|METRICS|AWS_ENDPOINT_URL|NODE_EXTRA)_[A-Z0-9_]+|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy)'/g,
          ))
            read.add(m[1]!);
        }
      }
    };
    walk(join(ROOT, 'src'));
    // Written for terraform, not read: the workspace of each command.
    const written = /^TF_WORKSPACE$/;
    const lowercase = (v: string) => /^[a-z_]+$/.test(v) && listed.has(v.toUpperCase());
    const unlisted = [...read].filter((v) => !written.test(v) && !lowercase(v) && !listed.has(v)).sort();
    expect(unlisted, 'read in src/ but not in src/config/environment.ts').toEqual([]);
    const missing = [...listed].filter((v) => !table.includes(`\`${v}\``)).sort();
    expect(missing).toEqual([]);
  });
});
