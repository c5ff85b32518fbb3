import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateConfigText } from '../../../src/config/load.js';
import { scanRepository } from '../../../src/config/scaffold/find-stack-dirs.js';
import { inferLayout } from '../../../src/config/scaffold/infer-layout.js';
import { renderConfig } from '../../../src/config/scaffold/render-config.js';
import { makeTempTree, type TempTree } from '../temp-dir.js';

const TF = 'resource "terraform_data" "x" {}\n';

let tree: TempTree;
beforeEach(async () => {
  tree = await makeTempTree('driftgate-scaffold-');
});
afterEach(() => tree.cleanup());

/** Scans the tree, writes the config as init does, and loads it as validate does: the stacks it finds. */
async function scaffold(files: string[]) {
  for (const file of files) await tree.file(file, TF);
  const scan = await scanRepository(tree.dir);
  const layout = inferLayout(scan.stacks, scan.modules, 'infra repo');
  const text = renderConfig(layout, { binary: 'terraform', project: 'infra' });
  const loaded = await validateConfigText(text, { baseDir: tree.dir, env: {} });
  return {
    layout,
    issues: loaded.issues,
    stacks: loaded.config?.stacks.map((s) => [s.name, s.environment ?? '-', s.workspace ?? '-'].join(' ')),
  };
}

describe('driftgate init: layouts to discovery rules', () => {
  const cases: { name: string; files: string[]; globs: string[]; stacks: string[] }[] = [
    {
      name: 'one environment at the top keeps it in the names',
      files: ['prod/app/main.tf', 'prod/db/main.tf'],
      globs: ['@(prod)/*'],
      stacks: ['prod/app prod -', 'prod/db prod -'],
    },
    {
      name: 'top-level dirs, each a stack without an environment',
      files: ['network/main.tf', 'dns/main.tf'],
      globs: ['{dns,network}'],
      stacks: ['dns - -', 'network - -'],
    },
    {
      name: 'the same names from two layouts: the container becomes a prefix, the environment stays',
      files: ['prod/app/main.tf', 'environments/prod/app/main.tf'],
      globs: ['environments/*/*', '@(prod)/*'],
      stacks: ['environments/prod/app prod -', 'prod/app prod -'],
    },
    {
      name: 'a root module at the top, named after the repository dir',
      files: ['main.tf', 'modules/vpc/main.tf'],
      globs: [],
      stacks: ['infra-repo - -'],
    },
    {
      name: 'a flat stacks/<name> layout',
      files: ['stacks/app/main.tf', 'stacks/shared/main.tf', 'stacks/web/main.tf'],
      globs: ['stacks/*'],
      stacks: ['app - -', 'shared - -', 'web - -'],
    },
  ];

  it.each(cases)('$name', async ({ files, globs, stacks }) => {
    const result = await scaffold(files);
    expect(result.issues).toEqual([]);
    expect(result.layout.rules.map((r) => r.glob)).toEqual(globs);
    expect(result.stacks).toEqual(stacks);
  });

  it('excludes a called module that sits where a stack glob looks', async () => {
    await tree.file('stacks/app/main.tf', 'module "shared" {\n  source = "../shared"\n}\n');
    const result = await scaffold(['stacks/shared/main.tf', 'stacks/web/main.tf']);
    expect(result.layout.rules).toMatchObject([{ glob: 'stacks/*', exclude: ['stacks/shared'] }]);
    expect(result.stacks).toEqual(['app - -', 'web - -']);
  });

  it('leaves out dirs whose path is no valid stack name, and says so', async () => {
    const result = await scaffold(['stacks/app/main.tf', 'stacks/my app/main.tf']);
    expect(result.layout.skipped).toEqual(['stacks/my app']);
    expect(result.layout.rules).toMatchObject([{ glob: 'stacks/*', exclude: ['stacks/my app'] }]);
    expect(result.stacks).toEqual(['app - -']);
  });
});
