import { describe, expect, it } from 'vitest';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import { canonicalJson } from '../../../src/domain/plan/canonical.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { readFixture, REAL_FIXTURES } from './plan-builder.js';

type Json = Record<string, unknown>;

function fingerprintOf(plan: unknown): string {
  return analyzePlan(parsePlanJson(JSON.stringify(plan))).analysis.fingerprint;
}

/** The same JSON with every object's keys in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  );
}

function load(name: string): Json {
  return JSON.parse(readFixture(name)) as Json;
}

function driftOf(plan: Json): { change: { after: { tags: Json; tags_all: Json } } } {
  return (plan.resource_drift as never[])[0]!;
}

describe('fingerprint', () => {
  it.each(REAL_FIXTURES)('%s: ignores key order, list order, versions, timestamps and provider hosts', (name) => {
    const plan = load(name);
    const reordered = reverseKeys(plan) as Json;
    reordered.resource_changes = [...((reordered.resource_changes as Json[] | undefined) ?? [])].reverse();
    reordered.terraform_version = '1.99.0';
    reordered.timestamp = '2031-01-01T00:00:00Z';
    reordered.format_version = '1.9';
    for (const rc of (reordered.resource_changes as Json[]) ?? [])
      rc.provider_name = String(rc.provider_name).replace('registry.terraform.io', 'registry.opentofu.org');
    expect(fingerprintOf(reordered)).toBe(fingerprintOf(plan));
  });

  it('is the same for the same drift seen again and differs when a drifted value differs', () => {
    const first = load('s3-drift.json');
    const again = load('s3-drift.json');
    expect(fingerprintOf(again)).toBe(fingerprintOf(first));
    const other = load('s3-drift.json');
    driftOf(other).change.after.tags.Name = 'changed-by-someone-else';
    expect(fingerprintOf(other)).not.toBe(fingerprintOf(first));
  });

  it('differs between different change sets', () => {
    const prints = new Set(REAL_FIXTURES.map((name) => fingerprintOf(load(name))));
    expect(prints.size).toBe(REAL_FIXTURES.length);
  });

  it('differs when only the action differs', () => {
    const plan = load('data-changes.json');
    const other = load('data-changes.json');
    const rc = (other.resource_changes as { address: string; change: { actions: string[] } }[]).find(
      (r) => r.address === 'terraform_data.cache',
    )!;
    rc.change.actions = ['delete', 'create'];
    expect(fingerprintOf(other)).not.toBe(fingerprintOf(plan));
  });

  it('does not depend on secret values (they are masked before hashing)', () => {
    const plan = load('data-changes.json');
    const rotated = JSON.parse(
      readFixture('data-changes.json').replaceAll('hunter2-fixture-password-v2', 'another-password-v3'),
    ) as Json;
    expect(fingerprintOf(rotated)).toBe(fingerprintOf(plan));
  });

  it('canonical JSON sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ y: 1, x: 2 }], c: undefined } })).toBe('{"a":{"d":[{"x":2,"y":1}]},"b":1}');
  });
});

describe('canonicalJson', () => {
  it('keeps a __proto__ map key as a key', () => {
    const value = JSON.parse('{"tags":{"__proto__":"x","a":"y"}}') as unknown;
    expect(canonicalJson(value)).toBe('{"tags":{"__proto__":"x","a":"y"}}');
  });
});
