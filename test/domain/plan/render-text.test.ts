import { describe, expect, it } from 'vitest';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import type { ActionCounts, PlanAnalysis } from '../../../src/domain/plan/model.js';
import { formatCounts, renderPlanText } from '../../../src/domain/plan/render-text.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { planText, readFixture, resourceChange } from './plan-builder.js';

function analyse(text: string): PlanAnalysis {
  return analyzePlan(parsePlanJson(text)).analysis;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: an ANSI escape is what must not appear
const ANSI = /\u001b\[/;

describe('formatCounts', () => {
  const zero: ActionCounts = { create: 0, update: 0, delete: 0, replace: 0, read: 0 };
  const cases: [Partial<ActionCounts>, string][] = [
    [{}, 'no changes'],
    [{ create: 1, update: 2, delete: 1, replace: 1 }, '+1 ~2 -1 ±1'],
    [{ delete: 3 }, '-3'],
    [{ replace: 2, read: 1 }, '±2 <=1'],
  ];
  it.each(cases)('%j -> %s', (counts, expected) => {
    expect(formatCounts({ ...zero, ...counts })).toBe(expected);
  });
});

describe('renderPlanText', () => {
  it('renders a small plan exactly', () => {
    const text = planText({
      resource_changes: [
        resourceChange({
          address: 'x_app.web',
          actions: ['update'],
          before: { name: 'a', tags: { 'a.b': 'x' } },
          after: { name: 'b', tags: { 'a.b': 'x' } },
        }),
        resourceChange({
          address: 'x_db.main',
          actions: ['create', 'delete'],
          before: { engine: '14', id: 'db-1', password: 'render-secret-1' },
          after: { engine: '15', password: 'render-secret-1' },
          after_unknown: { id: true },
          before_sensitive: { password: true },
          after_sensitive: { password: true },
          replace_paths: [['engine']],
        }),
        resourceChange({
          address: 'x_old.gone',
          actions: ['delete'],
          before: { id: 'g-1' },
          action_reason: 'delete_because_no_resource_config',
        }),
      ],
      output_changes: {
        url: {
          actions: ['create'],
          before: null,
          after: 'https://b',
          after_unknown: false,
          before_sensitive: false,
          after_sensitive: false,
        },
      },
    });
    expect(renderPlanText(analyse(text))).toBe(
      [
        '! 2 resources will be destroyed or replaced: x_old.gone, x_db.main',
        '',
        'Terraform will perform the following actions:',
        '',
        '  # x_old.gone will be destroyed (delete because no resource config)',
        '  - resource "x_old" "gone" {',
        '      - id = "g-1" -> null',
        '    }',
        '',
        '  # x_db.main must be replaced (create before destroy)',
        '+/- resource "x_db" "main" {',
        '      ~ engine = "14" -> "15" # forces replacement',
        '      ~ id     = "db-1" -> (known after apply)',
        '    }',
        '',
        '  # x_app.web will be updated in-place',
        '  ~ resource "x_app" "web" {',
        '      ~ name = "a" -> "b"',
        '    }',
        '',
        'Changes to Outputs:',
        '  + url = "https://b"',
        '',
        'Plan: ~1 -1 ±1',
        '',
      ].join('\n'),
    );
  });

  it('renders the real fixture the way terraform users read it', () => {
    const out = renderPlanText(analyse(readFixture('data-changes.json')));
    for (const line of [
      '-/+ resource "terraform_data" "db" {',
      '+/- resource "terraform_data" "cache" {',
      '      ~ triggers_replace = "staging" -> "production" # forces replacement',
      '      ~ input.tags["team.owner"] = "ops" -> "platform"',
      '      + input.ports[2]           = 8443',
      '      + input.url    = "postgres://app:(sensitive value)@db:5432/app"',
      '      ~ input  = (sensitive value)',
      '      ~ output = (sensitive value) -> (known after apply)',
      '  # terraform_data.new_name has moved from terraform_data.old_name',
      '  ~ db_password = (sensitive value)',
      '  ~ env         = "staging" -> "production"',
      'Plan: +1 ~3 -1 ±3',
    ]) {
      expect(out).toContain(line);
    }
    expect(out.indexOf('terraform_data.legacy will be destroyed')).toBeLessThan(
      out.indexOf('terraform_data.web will be updated'),
    );
  });

  it('shows drift under its own heading', () => {
    const out = renderPlanText(analyse(readFixture('s3-drift.json')));
    expect(
      out.startsWith(
        'Changes outside of Terraform (drift):\n\n  # aws_s3_object.report has changed\n  ~ resource "aws_s3_object" "report" {',
      ),
    ).toBe(true);
    expect(out).toContain('      + tags.owner     = "someone"');
  });

  it('says so when nothing changes', () => {
    expect(renderPlanText(analyse(readFixture('data-no-changes.json')))).toBe(
      'No changes. Your infrastructure matches the configuration.\n',
    );
  });

  it('uses ANSI colour only when asked', () => {
    const analysis = analyse(readFixture('data-changes.json'));
    expect(renderPlanText(analysis)).not.toMatch(ANSI);
    expect(renderPlanText(analysis, { color: false })).not.toMatch(ANSI);
    const coloured = renderPlanText(analysis, { color: true });
    expect(coloured).toMatch(ANSI);
    expect(coloured).toContain('\u001b[31m! 4 resources will be destroyed or replaced');
  });

  it('cuts long plans after maxResources, keeping destroys and replacements', () => {
    const out = renderPlanText(analyse(readFixture('data-changes.json')), { maxResources: 4 });
    expect(out.match(/^ {2}# /gm)).toHaveLength(4);
    expect(out).toContain('  … and 5 more resources not shown');
    for (const address of [
      'terraform_data.legacy',
      'terraform_data.db',
      'terraform_data.cache',
      'module.app.terraform_data.token',
    ]) {
      expect(out).toContain(`# ${address} `);
    }
    expect(out).toContain('Plan: +1 ~3 -1 ±3');
  });

  it('warns when a plan with changes cannot be applied', () => {
    const text = planText({
      errored: true,
      applyable: false,
      resource_changes: [resourceChange({ address: 'x_a.b', actions: ['create'], after: { a: 1 } })],
    });
    expect(renderPlanText(analyse(text))).toMatch(/^! This plan cannot be applied/);
  });
});
