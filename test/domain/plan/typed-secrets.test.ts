/**
 * Secrets of every type and length: masked structurally (a marked path and the unmarked copies the plan's
 * structure makes of it), then by value (JSON values by equality whatever the type; free text only for
 * distinctive secrets), never inside other text.
 */
import { describe, expect, it } from 'vitest';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import { SENSITIVE_PLACEHOLDER as S } from '../../../src/domain/plan/model.js';
import { collectSecrets, createRedactor, isDistinctiveSecret } from '../../../src/domain/plan/redact.js';
import { renderPlanText } from '../../../src/domain/plan/render-text.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { planText, resourceChange } from './plan-builder.js';

const TOKEN = 'ghp_9f8e7d6c5b4a39281706f5e4d3c2b1a0ZyXwVu'; // 40 characters
const PIN = 4821;

/** A terraform_data whose sensitive input (a PIN, a flag, a short name) is mirrored, unmarked, by `output`. */
function mirroredPlan() {
  const before = { pin: PIN, admin: true, user: 'admin', token: TOKEN };
  const after = { pin: 9930, admin: true, user: 'level', token: TOKEN };
  return parsePlanJson(
    planText({
      resource_drift: [
        resourceChange({
          address: 'terraform_data.creds',
          actions: ['update'],
          before: { id: 'x', input: before, output: before, triggers_replace: null },
          after: { id: 'x', input: after, output: after, triggers_replace: null },
          before_sensitive: { input: true },
          after_sensitive: { input: true },
        }),
      ],
      // Another resource reads creds whole: its outside change is drift.
      relevant_attributes: [{ resource: 'terraform_data.creds', attribute: [] }],
      resource_changes: [
        resourceChange({
          address: 'terraform_data.other',
          actions: ['update'],
          before: { input: { port: 8080, enabled: false, note: 'admin level 1' } },
          after: { input: { port: PIN, enabled: true, note: 'admin level 2' } },
        }),
      ],
    }),
  );
}

describe('typed secrets', () => {
  it('collects marked numbers and booleans, not only strings', () => {
    const secrets = collectSecrets(mirroredPlan());
    expect(secrets.has(PIN)).toBe(true);
    expect(secrets.has(true)).toBe(true);
    expect(secrets.has('admin')).toBe(true);
  });

  it('masks the unmarked mirror of a marked input, whatever the type, in the analysis and its text', () => {
    const { analysis } = analyzePlan(mirroredPlan());
    const drift = analysis.drift[0]!;
    const output = drift.attributes.filter((a) => a.path.startsWith('output'));
    expect(output.length).toBeGreaterThan(0);
    for (const a of output) {
      expect(a.before, a.path).toEqual({ kind: 'sensitive' });
      expect(a.after, a.path).toEqual({ kind: 'sensitive' });
    }
    const text = [JSON.stringify(analysis.drift), renderPlanText(analysis)].join('\n');
    for (const value of [String(PIN), '9930', TOKEN]) expect(text).not.toContain(value);
  });

  it('masks JSON values equal to a secret whatever their type, and never a secret inside other text', () => {
    const { analysis } = analyzePlan(mirroredPlan());
    const other = analysis.changes[0]!;
    const byPath = Object.fromEntries(other.attributes.map((a) => [a.path, a]));
    expect(byPath['input.port']!.after).toEqual({ kind: 'sensitive' });
    expect(byPath['input.enabled']!.after).toEqual({ kind: 'sensitive' });
    expect(byPath['input.enabled']!.before).toEqual({ kind: 'value', value: false });
    // `admin` and `level` are secrets of this plan, but too short to be searched inside text.
    expect(byPath['input.note']!.after).toEqual({ kind: 'value', value: 'admin level 2' });
  });

  it('searches free text only for distinctive secrets', () => {
    const r = createRedactor(['admin', 1, true, PIN, String(PIN), TOKEN, 'level']);
    const line = `{"level":30,"msg":"user admin tried 1 time: true, pin ${PIN}, token ${TOKEN}"}`;
    expect(r.redact(line)).toBe(`{"level":30,"msg":"user admin tried 1 time: true, pin ${PIN}, token ${S}"}`);
    expect(isDistinctiveSecret('admin')).toBe(false);
    expect(isDistinctiveSecret('1')).toBe(false);
    expect(isDistinctiveSecret('true')).toBe(false);
    expect(isDistinctiveSecret(String(PIN))).toBe(false);
    expect(isDistinctiveSecret(TOKEN)).toBe(true);
  });

  it('masks whole JSON values by equality whatever the type', () => {
    const r = createRedactor(['admin', 1, true, PIN, TOKEN]);
    expect(
      r.redactValue({ a: 'admin', b: 1, c: true, d: PIN, e: 'x admin', f: false, g: 2, h: '1', t: `t=${TOKEN}` }),
    ).toEqual({
      a: S,
      b: S,
      c: S,
      d: S,
      e: 'x admin',
      f: false,
      g: 2,
      h: '1',
      t: `t=${S}`,
    });
    // A whole text equal to a string secret is the secret, whatever its length.
    expect(r.redact('admin')).toBe(S);
  });
});
