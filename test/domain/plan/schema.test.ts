import { describe, expect, it } from 'vitest';
import { PlanJsonError } from '../../../src/domain/errors.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { makePlan, planText, readFixture, REAL_FIXTURES, resourceChange } from './plan-builder.js';

function parseError(text: string): PlanJsonError {
  try {
    parsePlanJson(text);
  } catch (err) {
    expect(err).toBeInstanceOf(PlanJsonError);
    return err as PlanJsonError;
  }
  throw new Error('expected parsePlanJson to throw');
}

describe('parsePlanJson', () => {
  it.each(REAL_FIXTURES)('parses the real terraform fixture %s', (name) => {
    const plan = parsePlanJson(readFixture(name));
    expect(plan.format_version).toMatch(/^1\./);
    expect(plan.terraform_version).toBe('1.11.4');
  });

  it('keeps fields it does not know', () => {
    const plan = parsePlanJson(planText({ relevant_attributes: [], some_future_field: { x: 1 } }));
    expect((plan as Record<string, unknown>).some_future_field).toEqual({ x: 1 });
  });

  const bad: [string, string, string][] = [
    ['empty text', '', 'the text is empty'],
    ['truncated JSON', '{"format_version": "1.2", "resource_ch', 'not JSON'],
    ['a JSON array', '[]', 'expected a JSON object'],
    ['format 2.0', planText({ format_version: '2.0' }), 'format_version: unsupported format_version'],
    ['missing terraform_version', JSON.stringify({ format_version: '1.2' }), 'terraform_version:'],
    [
      'an unknown action',
      planText({
        resource_changes: [
          resourceChange({ address: 'a.b', actions: ['create'] }),
          resourceChange({ address: 'a.c', actions: ['explode'] }),
        ],
      }),
      'resource_changes[1].change.actions[0]:',
    ],
    [
      'empty actions',
      planText({ resource_changes: [resourceChange({ address: 'a.b', actions: [] })] }),
      'resource_changes[0].change.actions:',
    ],
    [
      'replace_paths not a list of paths',
      planText({
        resource_drift: [resourceChange({ address: 'a.b', actions: ['update'], replace_paths: ['input' as never] })],
      }),
      'resource_drift[0].change.replace_paths[0]:',
    ],
    [
      'an output without actions',
      planText({ output_changes: { 'a.b': { before: 1, after: 2 } } }),
      'output_changes["a.b"].actions:',
    ],
    [
      'a non-boolean sensitive flag in a module variable',
      planText({
        configuration: {
          root_module: { module_calls: { app: { module: { variables: { t: { sensitive: 'yes' } } } } } },
        },
      }),
      'configuration.root_module.module_calls.app.module.variables.t.sensitive:',
    ],
  ];

  it.each(bad)('rejects %s with a located PLAN_JSON_INVALID error', (_, text, expected) => {
    const err = parseError(text);
    expect(err.code).toBe('PLAN_JSON_INVALID');
    expect(err.message).toContain('invalid plan JSON');
    expect(err.message).toContain(expected);
  });

  it('never quotes the text in its error (plan JSON holds secrets in clear)', () => {
    const secret = 'hunter2-not-in-errors';
    const err = parseError(`{"variables": {"pw": {"value": "${secret}"}}, oops}`);
    expect(err.message).not.toContain(secret);
    expect(err.message).toMatch(/syntax error at character \d+/);
    const structural = parseError(JSON.stringify({ ...makePlan(), format_version: secret }));
    expect(structural.message).not.toContain(secret);
  });
});
