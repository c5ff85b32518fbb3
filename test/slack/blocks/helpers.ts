/** Analyses, runs and payload walkers shared by the renderer tests. */
import { expect } from 'vitest';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import type { AttributeChange, PlanAnalysis, ResourceChange } from '../../../src/domain/plan/model.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import type { Run } from '../../../src/domain/run/model.js';
import { blockProblems, messageProblems } from '../../../src/slack/limits.js';
import { ALL_FIXTURE_SECRETS, readFixture, REAL_FIXTURES } from '../../domain/plan/plan-builder.js';

export { ALL_FIXTURE_SECRETS, REAL_FIXTURES };

export function fixtureAnalysis(name: string): PlanAnalysis {
  return analyzePlan(parsePlanJson(readFixture(name))).analysis;
}

export function makeRun(overrides: Partial<Run> = {}): Run {
  const at = new Date('2025-03-04T05:06:07Z');
  return {
    id: 'run-0001',
    stack: 'prod/database',
    state: 'drifted',
    trigger: 'schedule',
    kind: 'drift',
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

const value = (v: unknown) => ({ kind: 'value', value: v }) as const;

export function attribute(path: string, before: unknown, after: unknown, forcesReplacement = false): AttributeChange {
  return { path, segments: [path], before: value(before), after: value(after), forcesReplacement };
}

export function resource(
  address: string,
  action: ResourceChange['action'],
  attributes: AttributeChange[] = [],
): ResourceChange {
  const [type = 'terraform_data', name = 'x'] = address.split('.').slice(-2);
  return {
    address,
    mode: 'managed',
    type,
    name,
    providerName: 'terraform.io/builtin/terraform',
    action,
    attributes,
    replacePaths: attributes.filter((a) => a.forcesReplacement).map((a) => a.path),
  };
}

/** A hand-made analysis; counts follow the changes. */
export function analysisOf(
  changes: ResourceChange[],
  drift: ResourceChange[] = [],
  extra: Partial<PlanAnalysis> = {},
): PlanAnalysis {
  const counts = { create: 0, update: 0, delete: 0, replace: 0, read: 0 };
  for (const c of changes) if (c.action !== 'no-op') counts[c.action] += 1;
  return {
    terraformVersion: '1.11.4',
    formatVersion: '1.2',
    changes,
    drift,
    outputs: [],
    counts,
    hasChanges: changes.length > 0,
    fingerprint: 'f'.repeat(64),
    resourceCount: changes.length,
    applyable: true,
    ...extra,
  };
}

/** Every mrkdwn text and the fallback: the strings Slack parses for mentions and links. */
export function mrkdwnTexts(payload: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      if (obj.type === 'mrkdwn' && typeof obj.text === 'string') out.push(obj.text);
      Object.values(obj).forEach(walk);
    }
  };
  walk(payload);
  const fallback = (payload as { text?: unknown }).text;
  if (typeof fallback === 'string') out.push(fallback);
  return out;
}

export function buttonsOf(
  blocks: unknown[],
): { action_id: string; value?: string; style?: string; confirm?: { text: { text: string } } }[] {
  return blocks.flatMap((b) => {
    const block = b as { type: string; elements?: unknown[]; accessory?: unknown };
    const elements = [
      ...(block.type === 'actions' ? (block.elements ?? []) : []),
      ...(block.accessory ? [block.accessory] : []),
    ];
    return elements.filter((e) => (e as { type: string }).type === 'button') as ReturnType<typeof buttonsOf>;
  });
}

export function expectValidMessage(message: { text: string; blocks: unknown[] }): void {
  expect(messageProblems(message)).toEqual([]);
}

export function expectValidView(view: { blocks: unknown[] }): void {
  expect(blockProblems(view.blocks, 'view')).toEqual([]);
}

/** A fenced code block in mrkdwn is whole: the fences pair up. */
export function expectBalancedFences(text: string): void {
  expect((text.match(/```/g) ?? []).length % 2).toBe(0);
}

/** No raw `<…>` control sequence other than the ones the renderer itself writes. */
export function expectNoInjection(texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<!here>');
    expect(text).not.toContain('<https://evil');
    expect(text).not.toContain('<@U999>');
    expect(text).not.toContain('<!subteam^S1>');
  }
}
