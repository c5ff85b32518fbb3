/** Which files a remediation may commit: held against the stack's directory, the way an attacker would try. */
import { describe, expect, it } from 'vitest';
import type { RemediationPlan } from '../../../src/domain/remediation/plan-remediation.js';
import { refusedRemediationPaths } from '../../../src/domain/remediation/remediation-paths.js';

const files = (...paths: string[]): Pick<RemediationPlan, 'files' | 'edits'> => ({
  files: paths.map((path) => ({ path, text: '' })),
  edits: [],
});
const why = (path: string, stackPath = 'stacks/prod/app') =>
  refusedRemediationPaths(files(path), stackPath).map((r) => r.why)[0];

describe('refusedRemediationPaths', () => {
  it.each([
    ['stacks/prod/app/main.tf', 'stacks/prod/app'],
    ['stacks/prod/app/variables.tf', 'stacks/prod/app/'],
    ['stacks/prod/app/.tf', './stacks/prod/app'],
    ['main.tf', '.'],
    ['main.tf', ''],
  ])('lets %s be committed for a stack in %j', (path, stackPath) => {
    expect(refusedRemediationPaths(files(path), stackPath)).toEqual([]);
  });

  it.each([
    ['', 'an empty path'],
    ['/etc/passwd', 'an absolute path'],
    ['/stacks/prod/app/main.tf', 'an absolute path'],
    ['C:/stacks/prod/app/main.tf', 'an absolute path'],
    ['stacks\\prod\\app\\main.tf', 'a backslash in the path'],
    ['stacks/prod/app/main.tf\u0000.yml', 'a control character in the path'],
    ['stacks/prod/app/\nmain.tf', 'a control character in the path'],
    ['stacks/prod//app/main.tf', 'an empty segment (`//` or a trailing `/`)'],
    ['stacks/prod/app/', 'an empty segment (`//` or a trailing `/`)'],
    ['stacks/prod/app/../app/main.tf', 'a `.` or `..` segment'],
    ['../prod/app/main.tf', 'a `.` or `..` segment'],
    ['./stacks/prod/app/main.tf', 'a `.` or `..` segment'],
    ['.github/workflows/x.yml', 'under `.git/` or `.github/`'],
    ['stacks/prod/app/.github/x.tf', 'under `.git/` or `.github/`'],
    ['.GitHub/workflows/x.tf', 'under `.git/` or `.github/`'],
    ['.git/hooks/pre-commit', 'under `.git/` or `.github/`'],
    ['stacks/prod/db/main.tf', "outside the stack's directory stacks/prod/app"],
    ['stacks/prod/app/modules/x/main.tf', "outside the stack's directory stacks/prod/app"],
    ['stacks/prod/application/main.tf', "outside the stack's directory stacks/prod/app"],
    ['main.tf', "outside the stack's directory stacks/prod/app"],
    ['stacks/prod/app/run.sh', 'not a `.tf` file'],
    ['stacks/prod/app/main.tf.json', 'not a `.tf` file'],
  ])('refuses %j: %s', (path, reason) => {
    expect(why(path)).toBe(reason);
  });

  it('refuses every file of a stack whose directory is under .github/, and another stack’s at the root', () => {
    expect(why('.github/main.tf', '.github')).toBe('under `.git/` or `.github/`');
    expect(why('app/main.tf', '.')).toBe("outside the stack's directory (the root)");
  });

  it('refuses a file named twice, and an edit naming a file outside; an edit of a file the answer has is fine', () => {
    const plan = {
      files: [
        { path: 'db/main.tf', text: 'a' },
        { path: 'db/main.tf', text: 'b' },
      ],
      edits: [
        { file: 'db/main.tf', address: 'x.y', path: ['a'], value: 1, before: 0 },
        { file: 'app/main.tf', address: 'x.y', path: ['a'], value: 1, before: 0 },
        { file: 'app/main.tf', address: 'x.z', path: ['a'], value: 1, before: 0 },
      ],
    };
    expect(refusedRemediationPaths(plan, 'db')).toEqual([
      { path: 'db/main.tf', why: 'named twice' },
      { path: 'app/main.tf', why: "outside the stack's directory db" },
    ]);
  });

  it('shows a refused path masked and cut: no control character, at most 80 characters', () => {
    const [refused] = refusedRemediationPaths(files(`\u001b[31m${'a/'.repeat(100)}x.tf`), 'db');
    expect(refused!.path).toHaveLength(80);
    expect(refused!.path.startsWith('\uFFFD[31m')).toBe(true);
    expect(refused!.path.endsWith('…')).toBe(true);
  });
});
