/**
 * The codify planner over the real aws_s3_object drift fixture (checked by `terraform fmt -check`) and
 * over hand-made plans for everything that must be skipped rather than guessed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collectSecrets, createRedactor, parsePlanJson, type PlanJson } from '../../../src/domain/plan/index.js';
import {
  planRemediation,
  type RemediationOptions,
  type StackFile,
} from '../../../src/domain/remediation/plan-remediation.js';
import { driftPlan, type DriftRow } from './drift-plans.js';
import { fmtDiff, useTerraformEnv } from './terraform-checks.js';

const s3Drift = parsePlanJson(readFileSync(new URL('../../fixtures/plans/s3-drift.json', import.meta.url), 'utf8'));

/** Matches the fixture's `configuration` section. */
const S3_MAIN_TF = `# The report object; its tags are edited by hand in the console sometimes.
resource "aws_s3_object" "report" {
  bucket       = "fixtures"
  key          = "report.txt"
  content      = "hello" # kept short
  content_type = "text/plain"

  tags = {
    Name = "report"
  }
}
`;

function plan(p: PlanJson, files: StackFile[], options: Partial<RemediationOptions> = {}) {
  return planRemediation(p, files, { redactor: createRedactor(collectSecrets(p)), ...options });
}

const SITE_TF = `resource "aws_s3_object" "site" {
  bucket       = "b"
  content_type = var.content_type
}
`;

describe('planRemediation on the real s3 drift plan', () => {
  const env = useTerraformEnv('driftgate-plan-remediation-');
  const files = [{ path: 'main.tf', text: S3_MAIN_TF }];

  it('codifies the changed tag and the added tag, per key, and leaves the rest of the file alone', async () => {
    const result = plan(s3Drift, files);
    expect(result.edits).toEqual([
      {
        file: 'main.tf',
        address: 'aws_s3_object.report',
        path: ['tags', 'Name'],
        value: 'changed-by-hand',
        before: 'report',
      },
      {
        file: 'main.tf',
        address: 'aws_s3_object.report',
        path: ['tags', 'owner'],
        value: 'someone',
        before: undefined,
      },
    ]);
    const expected = S3_MAIN_TF.replace(
      '    Name = "report"\n',
      '    Name  = "changed-by-hand"\n    owner = "someone"\n',
    );
    expect(result.files).toEqual([{ path: 'main.tf', text: expected }]);
    expect(await fmtDiff(env(), result.files[0]!.text)).toBe('');
  });

  it('does not codify metadata (read back as {} where the code leaves it unset: apply changes nothing)', () => {
    const result = plan(s3Drift, files);
    expect([...result.edits, ...result.skipped].map((x) => ('path' in x ? x.path[0] : x.attribute))).not.toContain(
      'metadata',
    );
  });

  it('skips tags_all, which the code does not set and the plan cannot say is settable', () => {
    expect(plan(s3Drift, files).skipped).toEqual([
      expect.objectContaining({ address: 'aws_s3_object.report', attribute: 'tags_all', code: 'maybe-computed' }),
    ]);
    const known = plan(s3Drift, files, { settable: (_type, attr) => (attr === 'tags_all' ? false : undefined) });
    expect(known.skipped).toEqual([
      expect.objectContaining({ attribute: 'tags_all', code: 'computed', reason: 'computed by the provider' }),
    ]);
  });
});

const siteRow = (over: Partial<DriftRow> = {}): DriftRow => ({
  address: 'aws_s3_object.site',
  real: { bucket: 'b', content_type: 'text/html' },
  code: { bucket: 'b', content_type: 'text/plain' },
  expressions: { bucket: { constant_value: 'b' }, content_type: { references: ['var.content_type'] } },
  ...over,
});

describe('planRemediation skips what it cannot codify safely', () => {
  it('names the variable, the file declaring it and the real value', () => {
    const files = [
      { path: 'main.tf', text: SITE_TF },
      { path: 'inputs.tf', text: 'variable "content_type" {\n  type = string\n}\n' },
    ];
    const result = plan(driftPlan([siteRow()]), files);
    expect(result.edits).toEqual([]);
    expect(result.files).toEqual([]);
    expect(result.skipped).toEqual([
      {
        address: 'aws_s3_object.site',
        attribute: 'content_type',
        code: 'reference',
        reason: 'set from var.content_type',
        guidance: `set var.content_type (inputs.tf or the stack's vars) to "text/html"`,
      },
    ]);
  });

  it('names the local and its locals block', () => {
    const text =
      'locals {\n  ct = "text/plain"\n}\n\nresource "aws_s3_object" "site" {\n  bucket       = "b"\n  content_type = local.ct\n}\n';
    const row = siteRow({ expressions: { content_type: { references: ['local.ct'] } } });
    const result = plan(driftPlan([row]), [{ path: 'main.tf', text }]);
    expect(result.skipped.map((s) => s.guidance)).toEqual(['set local.ct (main.tf) to "text/html"']);
  });

  it('names the other resource an expression comes from', () => {
    const row = siteRow({ expressions: { content_type: { references: ['aws_s3_bucket.b.id', 'aws_s3_bucket.b'] } } });
    const result = plan(driftPlan([row]), [{ path: 'main.tf', text: SITE_TF }]);
    expect(result.skipped[0]!.guidance).toBe(
      'aws_s3_object.site.content_type in main.tf is computed from aws_s3_bucket.b.id; change that expression so that it gives "text/html"',
    );
  });

  it.each([
    ['in-module', { address: 'module.web.aws_s3_object.site', moduleAddress: 'module.web' }],
    ['count-or-for-each', { address: 'aws_s3_object.site[0]', index: 0 }],
    ['count-or-for-each', { address: 'aws_s3_object.site["a"]', index: 'a' }],
    ['created-outside-terraform', { driftActions: ['create'], notInPrior: true }],
    ['deleted-outside-terraform', { driftActions: ['delete'] }],
    ['deleted-outside-terraform', { notInPrior: true }],
  ] as const)('skips the whole resource: %s', (code, over) => {
    const row = siteRow({
      ...over,
      driftActions: 'driftActions' in over ? [...over.driftActions] : undefined,
      expressions: { content_type: { constant_value: 'text/plain' } },
    });
    const text = 'resource "aws_s3_object" "site" {\n  content_type = "text/plain"\n}\n';
    const result = plan(driftPlan([row]), [{ path: 'main.tf', text }]);
    expect(result.edits).toEqual([]);
    expect(result.skipped).toEqual([expect.objectContaining({ address: row.address, code })]);
    expect(result.skipped[0]!.attribute).toBeUndefined();
  });

  it('never lets a sensitive value into an edit, a reason or a guidance', () => {
    const secret = 'hunter2-correct-horse';
    const rows = [
      siteRow({
        real: { content: secret, content_type: 'text/html' },
        code: { content: 'old-secret-value', content_type: 'text/html' },
        expressions: { content: { constant_value: 'old-secret-value' }, content_type: { constant_value: 'text/html' } },
        sensitive: { content: true },
      }),
      // Not marked, but it holds a secret the plan marks elsewhere: the redactor masks it.
      siteRow({
        address: 'aws_s3_object.copy',
        real: { content: `copy of ${secret}` },
        code: { content: 'plain' },
        expressions: { content: { constant_value: 'plain' } },
      }),
    ];
    const text =
      'resource "aws_s3_object" "site" {\n  content = "old-secret-value"\n}\n\nresource "aws_s3_object" "copy" {\n  content = "plain"\n}\n';
    const result = plan(driftPlan(rows), [{ path: 'main.tf', text }]);
    expect(result.edits).toEqual([]);
    expect(result.files).toEqual([]);
    expect(result.skipped.map((s) => [s.address, s.attribute, s.code, s.reason])).toEqual([
      ['aws_s3_object.site', 'content', 'sensitive', 'not codified: sensitive'],
      ['aws_s3_object.copy', 'content', 'sensitive', 'not codified: sensitive'],
    ]);
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(JSON.stringify(result)).not.toContain('old-secret-value');
  });
});

describe('planRemediation codifies literals', () => {
  const tagsTf = `resource "aws_s3_object" "site" {
  bucket = "b"

  tags = {
    Name = "site" # the console shows this
    env  = "prod"
  }
}
`;

  it('rewrites only the one tag that changed', () => {
    const row = siteRow({
      real: { bucket: 'b', tags: { Name: 'site', env: 'staging' } },
      code: { bucket: 'b', tags: { Name: 'site', env: 'prod' } },
      expressions: { bucket: { constant_value: 'b' }, tags: { constant_value: { Name: 'site', env: 'prod' } } },
    });
    const result = plan(driftPlan([row]), [
      { path: 'main.tf', text: tagsTf },
      { path: 'other.tf', text: '# nothing\n' },
    ]);
    expect(result.edits).toEqual([
      { file: 'main.tf', address: 'aws_s3_object.site', path: ['tags', 'env'], value: 'staging', before: 'prod' },
    ]);
    expect(result.skipped).toEqual([]);
    expect(result.files).toEqual([{ path: 'main.tf', text: tagsTf.replace('env  = "prod"', 'env  = "staging"') }]);
  });

  it('adds an attribute the code leaves unset when the schema says it can be set', () => {
    const row = siteRow({
      real: { bucket: 'b', cache_control: 'max-age=60' },
      code: { bucket: 'b', cache_control: null },
      expressions: { bucket: { constant_value: 'b' } },
    });
    const text = 'resource "aws_s3_object" "site" {\n  bucket = "b"\n}\n';
    const result = plan(driftPlan([row]), [{ path: 'main.tf', text }], { settable: () => true });
    expect(result.edits).toEqual([
      {
        file: 'main.tf',
        address: 'aws_s3_object.site',
        path: ['cache_control'],
        value: 'max-age=60',
        before: undefined,
      },
    ]);
    expect(result.files[0]!.text).toBe(
      'resource "aws_s3_object" "site" {\n  bucket        = "b"\n  cache_control = "max-age=60"\n}\n',
    );
  });

  it('turns a refusal of the rewriter into a skip with its reason', () => {
    const row = siteRow({ expressions: { content_type: { constant_value: 'text/plain' } } });
    const result = plan(driftPlan([row]), [{ path: 'main.tf', text: SITE_TF }]);
    expect(result.edits).toEqual([]);
    expect(result.skipped).toEqual([
      expect.objectContaining({
        code: 'rewrite-refused',
        attribute: 'content_type',
        guidance: 'edit main.tf by hand: set aws_s3_object.site.content_type to "text/html"',
      }),
    ]);
  });

  it('skips a resource no file declares', () => {
    const result = plan(driftPlan([siteRow()]), [{ path: 'main.tf', text: '# empty\n' }]);
    expect(result.skipped).toEqual([expect.objectContaining({ code: 'not-declared-in-files' })]);
  });
});

describe('planRemediation on changes refresh did not report (an edited state)', () => {
  const literal = { bucket: { constant_value: 'b' }, content_type: { constant_value: 'text/plain' } };
  const text = 'resource "aws_s3_object" "site" {\n  bucket       = "b"\n  content_type = "text/plain"\n}\n';

  it('codifies an update from the state, as drift from the code to it', () => {
    const p = driftPlan([siteRow({ expressions: literal })], { resource_drift: [] });
    const result = plan(p, [{ path: 'main.tf', text }]);
    expect(result.edits).toEqual([
      {
        file: 'main.tf',
        address: 'aws_s3_object.site',
        path: ['content_type'],
        value: 'text/html',
        before: 'text/plain',
      },
    ]);
    expect(result.skipped).toEqual([]);
  });

  it('leaves a resource only the code or only the state has for a person', () => {
    const p = driftPlan([siteRow({ expressions: literal })], { resource_drift: [] });
    const created = structuredClone(p.resource_changes![0]!);
    created.change.actions = ['create'];
    const deleted = { ...structuredClone(created), address: 'aws_s3_object.old', name: 'old' };
    deleted.change.actions = ['delete'];
    const unchanged = { ...structuredClone(created), address: 'aws_s3_object.same', name: 'same' };
    unchanged.change.actions = ['no-op'];
    const result = plan({ ...p, resource_changes: [created, deleted, unchanged] }, [{ path: 'main.tf', text }]);
    expect(result.edits).toEqual([]);
    expect(result.skipped.map((s) => [s.address, s.code, s.guidance])).toEqual([
      [
        'aws_s3_object.site',
        'missing-from-state',
        'if aws_s3_object.site still exists, `terraform import` it; if it is gone for good, remove its block from the code',
      ],
      [
        'aws_s3_object.old',
        'missing-from-code',
        'write a block for aws_s3_object.old into the code, or `terraform state rm` it if terraform should stop managing it',
      ],
    ]);
  });

  it('does not read a change twice when refresh reported it', () => {
    const result = plan(driftPlan([siteRow({ expressions: literal })]), [{ path: 'main.tf', text }]);
    expect(result.edits).toHaveLength(1);
  });
});
