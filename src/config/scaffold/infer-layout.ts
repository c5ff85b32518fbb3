import picomatch from 'picomatch';
import type { StackDir } from './find-stack-dirs.js';

/** A `discover` rule `driftgate init` writes, with what it found for the comment above it. */
export interface DiscoverDraft {
  glob: string;
  exclude: string[];
  namePrefix?: string;
  /** The layout in words, e.g. `environments/<env>/<layer>`. */
  shape: string;
  /** Stack names the rule gives, sorted. */
  names: string[];
  environments: string[];
  /** Backend type -> how many of the rule's stacks use it (`local` for none). */
  backends: Record<string, number>;
  /** Backend types declared empty (`backend "s3" {}`): their settings go in `backendConfig`. */
  partialBackends: string[];
  /** Variables without a default in any of the rule's stacks. */
  requiredVars: string[];
}

/** An explicit `stacks` entry: the repository root, or one workspace of a dir. */
export interface StackDraft {
  name: string;
  dir: string;
  workspace?: string;
  environment?: string;
  varFiles: string[];
  backend?: StackDir['backend'];
  requiredVars: string[];
}

export interface Layout {
  rules: DiscoverDraft[];
  stacks: StackDraft[];
  /** Every environment the stacks have, sorted. */
  environments: string[];
  /** Dirs left out because their path is no valid stack name. */
  skipped: string[];
}

const ENVIRONMENT =
  /^(dev|devel|develop|development|test|testing|qa|uat|int|integration|stage|staging|stg|preprod|pre-prod|nonprod|non-prod|prod|production|prd|sandbox|sbx|demo|perf|shared|global|mgmt|management|ops)$/i;
const VALID_NAME = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;
/** `prod`, `production`, `acme-prod`; not `preprod` or `non-prod`. */
export const isProductionEnvironment = (env: string): boolean =>
  /^prd$|(^|[-_])prod(uction)?$/i.test(env) && !/(pre|non)[-_]?prod/i.test(env);

const alternatives = (names: string[]) => (names.length === 1 ? `@(${names[0]})` : `{${names.join(',')}}`);
const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

/** What each dir's segments mean, for the rule's comment: `<account>/<region>/<layer>` under `live`. */
function shapeOf(container: string | undefined, tailDepth: number): string {
  if (tailDepth === 1) return container ? `${container}/<stack>` : '<stack>';
  const first = container === 'live' ? '<account>' : '<env>';
  const middle = Array.from({ length: tailDepth - 2 }, (_, i) =>
    tailDepth === 3 && container === 'live' ? '<region>' : `<dir${i + 1}>`,
  );
  return [...(container ? [container] : []), first, ...middle, '<layer>'].join('/');
}

interface Group {
  glob: string;
  container?: string;
  shape: string;
  dirs: StackDir[];
  /** The part of the path below the glob's fixed prefix: the stack name. */
  tail(rel: string): string;
}

/** Turns the stack dirs found into discovery rules (one per layout), plus explicit stacks for workspaces. */
export function inferLayout(found: StackDir[], modules: string[], rootName: string): Layout {
  const skipped = found.filter((d) => d.rel && !VALID_NAME.test(d.rel)).map((d) => d.rel);
  const usable = found.filter((d) => !skipped.includes(d.rel));
  const stacks: StackDraft[] = [];
  // The repository root as a stack is named after the repository's dir.
  const rootStack = rootName.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'main';
  const root = usable.find((d) => d.rel === '');
  if (root && root.workspaces.length === 0) stacks.push(explicit(rootStack, root));
  for (const dir of usable.filter((d) => d.workspaces.length > 0)) {
    const base = dir.rel.split('/').pop() || rootStack;
    for (const ws of dir.workspaces) stacks.push(explicit(`${ws}/${base}`, dir, ws));
  }
  const grouped = usable.filter((d) => d.rel !== '' && d.workspaces.length === 0);
  const groups = groupDirs(grouped);

  // Everything a glob could match that is not its own stack: modules, workspace dirs, invalid names.
  const notStacks = [...modules, ...skipped, ...usable.filter((d) => d.workspaces.length > 0).map((d) => d.rel)];
  const rules = groups.map((g): DiscoverDraft => {
    const isMatch = picomatch(g.glob);
    const names = g.dirs.map((d) => g.tail(d.rel));
    const backends: Record<string, number> = {};
    for (const d of g.dirs) backends[d.backend?.type ?? 'local'] = (backends[d.backend?.type ?? 'local'] ?? 0) + 1;
    return {
      glob: g.glob,
      exclude: notStacks.filter((rel) => isMatch(rel)).sort(),
      shape: g.shape,
      names: sorted(names),
      environments: sorted(names.filter((n) => n.includes('/')).map((n) => n.split('/')[0]!)),
      backends,
      partialBackends: sorted(g.dirs.filter((d) => d.backend?.partial).map((d) => d.backend!.type)),
      requiredVars: sorted(g.dirs.flatMap((d) => d.requiredVars)),
    };
  });
  separateCollidingNames(rules, groups, stacks);
  const environments = sorted([
    ...rules.flatMap((r) => r.environments),
    ...stacks.flatMap((s) => (s.environment ? [s.environment] : [])),
  ]);
  return { rules, stacks, environments, skipped };
}

function explicit(name: string, dir: StackDir, workspace?: string): StackDraft {
  const varFiles = workspace ? dir.varFiles.filter((f) => f.replace(/\.tfvars(\.json)?$/, '') === workspace) : [];
  return {
    name,
    dir: dir.rel || '.',
    ...(workspace ? { workspace, environment: workspace } : {}),
    varFiles,
    requiredVars: dir.requiredVars,
    ...(dir.backend ? { backend: dir.backend } : {}),
  };
}

/**
 * One group per layout: top-level dirs together; dirs whose first segment is an environment name
 * (`prod/network`) together per depth; otherwise per first segment and depth (`live/*\/*\/*`, `stacks/*`).
 */
function groupDirs(dirs: StackDir[]): Group[] {
  const byKey = new Map<string, StackDir[]>();
  for (const d of dirs) {
    const segments = d.rel.split('/');
    const key =
      segments.length === 1
        ? 'top'
        : ENVIRONMENT.test(segments[0]!)
          ? `env:${segments.length}`
          : `dir:${segments.length}:${segments[0]}`;
    byKey.set(key, [...(byKey.get(key) ?? []), d]);
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, members]): Group => {
      const depth = members[0]!.rel.split('/').length;
      const stars = '/*'.repeat(depth - 1);
      if (key === 'top') {
        const names = sorted(members.map((d) => d.rel));
        return {
          glob: names.length === 1 ? names[0]! : `{${names.join(',')}}`,
          shape: shapeOf(undefined, 1),
          dirs: members,
          tail: (rel) => rel,
        };
      }
      if (key.startsWith('env:')) {
        const envs = sorted(members.map((d) => d.rel.split('/')[0]!));
        return {
          glob: `${alternatives(envs)}${stars}`,
          shape: shapeOf(undefined, depth),
          dirs: members,
          tail: (r) => r,
        };
      }
      const container = members[0]!.rel.split('/')[0]!;
      return {
        glob: `${container}${stars}`,
        container,
        shape: shapeOf(container, depth - 1),
        dirs: members,
        tail: (rel) => rel.slice(container.length + 1),
      };
    });
}

/** Two layouts giving the same name (`prod/app` at the top and under `environments/`): prefix the container. */
function separateCollidingNames(rules: DiscoverDraft[], groups: Group[], stacks: StackDraft[]): void {
  const owners = new Map<string, number>();
  for (const s of stacks) owners.set(s.name, (owners.get(s.name) ?? 0) + 1);
  for (const r of rules) for (const n of r.names) owners.set(n, (owners.get(n) ?? 0) + 1);
  rules.forEach((rule, i) => {
    const container = groups[i]!.container;
    if (!container || !rule.names.some((n) => (owners.get(n) ?? 0) > 1)) return;
    rule.namePrefix = `${container}/`;
    rule.names = rule.names.map((n) => `${container}/${n}`);
  });
}
