import { describe, expect, it } from 'vitest';
import {
  isPlanShell,
  isResourceChange,
  isStateModuleShell,
  isStateResource,
} from '../../../src/domain/plan/fast-checks.js';
import { parsePlanJson, planJsonSchemas } from '../../../src/domain/plan/schema.js';
import { planText, REAL_FIXTURES, readFixture, resourceChange } from './plan-builder.js';

type Json = Record<string, unknown> & { address?: unknown; change?: unknown };

const valid = (JSON.parse(readFixture('data-changes.json')) as { resource_changes: Json[] }).resource_changes.find(
  (rc) => rc.address === 'terraform_data.db',
)!;

function mutate(edit: (rc: Json & { change: Json }) => void): unknown {
  const copy = structuredClone(valid) as Json & { change: Json };
  edit(copy);
  return copy;
}

describe('fast checks agree with the zod schemas', () => {
  const changes: [string, unknown][] = [
    ['a real resource change', valid],
    [
      'unknown extra fields',
      mutate((rc) => {
        rc.new_field = { x: 1 };
        rc.change.new_field = [1];
      }),
    ],
    ['a string index', mutate((rc) => (rc.index = 'eu-west-1'))],
    ['a numeric index', mutate((rc) => (rc.index = 3))],
    ['a boolean index', mutate((rc) => (rc.index = true))],
    ['no address', mutate((rc) => delete rc.address)],
    ['a null previous_address', mutate((rc) => (rc.previous_address = null))],
    ['mode "resource"', mutate((rc) => (rc.mode = 'resource'))],
    ['a data source', mutate((rc) => (rc.mode = 'data'))],
    ['no change', mutate((rc) => delete (rc as Json).change)],
    ['empty actions', mutate((rc) => (rc.change.actions = []))],
    ['an unknown action', mutate((rc) => (rc.change.actions = ['create', 'explode']))],
    ['forget', mutate((rc) => (rc.change.actions = ['forget']))],
    ['replace_paths with an object step', mutate((rc) => (rc.change.replace_paths = [['a', { b: 1 }]]))],
    ['replace_paths not nested', mutate((rc) => (rc.change.replace_paths = ['a']))],
    ['importing with an id', mutate((rc) => (rc.change.importing = { id: 'i-1' }))],
    ['importing with a numeric id', mutate((rc) => (rc.change.importing = { id: 1 }))],
    ['importing as a string', mutate((rc) => (rc.change.importing = 'i-1'))],
    ['an array instead of an object', [valid]],
    ['null', null],
  ];

  it.each(changes)('resource change: %s', (_, item) => {
    expect(isResourceChange(item)).toBe(planJsonSchemas().PlanResourceChangeSchema.safeParse(item).success);
  });

  const stateResources: [string, unknown][] = [
    ['valid', { address: 'a.b', mode: 'managed', values: {}, sensitive_values: {} }],
    ['no mode', { address: 'a.b' }],
    ['numeric address', { address: 1, mode: 'managed' }],
    ['a string', 'a.b'],
  ];

  it.each(stateResources)('state resource: %s', (_, item) => {
    expect(isStateResource(item)).toBe(planJsonSchemas().PlanStateResourceSchema.safeParse(item).success);
  });

  const realPlan = JSON.parse(readFixture('data-changes.json')) as Json;
  const withField = (field: string, value: unknown): unknown => ({ ...structuredClone(realPlan), [field]: value });
  const documents: [string, unknown][] = [
    ...REAL_FIXTURES.map((name): [string, unknown] => [`fixture ${name}`, JSON.parse(readFixture(name))]),
    ['format 2.0', withField('format_version', '2.0')],
    ['a numeric format_version', withField('format_version', 1.2)],
    ['no terraform_version', withField('terraform_version', undefined)],
    ['variables as a list', withField('variables', [])],
    ['a variable that is a string', withField('variables', { a: 'x' })],
    ['resource_changes as an object', withField('resource_changes', {})],
    ['resource_drift null', withField('resource_drift', null)],
    ['an output change without actions', withField('output_changes', { o: { before: 1, after: 2 } })],
    ['an output change with an unknown action', withField('output_changes', { o: { actions: ['boom'] } })],
    ['a valid output change', withField('output_changes', { o: { actions: ['update'], before: 1, after: 2 } })],
    ['prior_state a string', withField('prior_state', 'x')],
    [
      'a prior_state output marked "yes"',
      withField('prior_state', { values: { outputs: { o: { sensitive: 'yes' } } } }),
    ],
    ['prior_state root_module anything', withField('prior_state', { values: { root_module: 7 } })],
    ['configuration a list', withField('configuration', [])],
    [
      'a nested module call with a bad variable',
      withField('configuration', {
        root_module: { module_calls: { m: { module: { variables: { v: { sensitive: 1 } } } } } },
      }),
    ],
    [
      'a nested module call',
      withField('configuration', {
        root_module: { module_calls: { m: { expressions: { a: {} }, module: { variables: { v: {} } } } } },
      }),
    ],
    [
      'module_calls expressions a list',
      withField('configuration', { root_module: { module_calls: { m: { expressions: [] } } } }),
    ],
    ['errored "no"', withField('errored', 'no')],
    ['complete false', withField('complete', false)],
    ['an array', [realPlan]],
  ];

  it.each(documents)('document: %s', (_, doc) => {
    expect(isPlanShell(doc)).toBe(planJsonSchemas().PlanShellSchema.safeParse(doc).success);
  });

  const stateModules: [string, unknown][] = [
    ['empty', {}],
    ['resources and children', { resources: [1], child_modules: [{}] }],
    ['resources an object', { resources: {} }],
    ['child_modules null', { child_modules: null }],
    ['a list', []],
  ];

  it.each(stateModules)('state module: %s', (_, module) => {
    expect(isStateModuleShell(module)).toBe(planJsonSchemas().StateModuleShellSchema.safeParse(module).success);
  });

  it('still locates an error deep in a long list', () => {
    const items = Array.from({ length: 5000 }, (_, i) =>
      resourceChange({ address: `x_r.r[${i}]`, actions: ['create'] }),
    );
    (items[4321]!.change as Json).actions = ['launch'];
    expect(() => parsePlanJson(planText({ resource_changes: items }))).toThrow(
      'resource_changes[4321].change.actions[0]:',
    );
  });

  it('locates an error in a nested module of the prior state', () => {
    const text = planText({
      prior_state: {
        values: {
          root_module: { child_modules: [{ resources: [{ address: 'a.b', mode: 'managed' }, { mode: 'managed' }] }] },
        },
      },
    });
    expect(() => parsePlanJson(text)).toThrow('prior_state.values.root_module.child_modules[0].resources[1].address:');
  });
});
