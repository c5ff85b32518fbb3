/** The shipped example rules, and a plan -> input -> evaluation pipeline as a run would drive it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseYaml } from '../../../src/config/parse-yaml.js';
import { PolicyFile } from '../../../src/config/schema.js';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import { isDistinctiveSecret, type SecretValue } from '../../../src/domain/plan/redact.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { compilePolicies, type CompiledPolicy } from '../../../src/domain/policy/compile.js';
import { evaluatePolicies } from '../../../src/domain/policy/evaluate.js';
import { buildPolicyInput, type PolicyStack } from '../../../src/domain/policy/input.js';
import type { PolicyEvaluation, PolicyInput, PolicyRule } from '../../../src/domain/policy/model.js';
import type { RunKind } from '../../../src/domain/run/state.js';

export const EXAMPLES_FILE = join(import.meta.dirname, '../../../examples/policies.yml');

export function exampleRules(): PolicyRule[] {
  const yaml = parseYaml(readFileSync(EXAMPLES_FILE, 'utf8'));
  expect(yaml.issues).toEqual([]);
  return PolicyFile.parse(yaml.value).rules;
}

export function compileOrThrow(rules: readonly PolicyRule[]): CompiledPolicy {
  const result = compilePolicies(rules);
  if (!result.ok)
    throw new Error(
      `rules do not compile:\n${result.issues.map((i) => `${i.rule}.${i.field}: ${i.message}`).join('\n')}`,
    );
  return result.policy;
}

export function examplePolicy(): CompiledPolicy {
  return compileOrThrow(exampleRules());
}

export const DEV_STACK: PolicyStack = { name: 'dev/app', environment: 'dev', labels: [] };

export interface Evaluated {
  input: PolicyInput;
  evaluation: PolicyEvaluation;
}

/** Plan JSON (an object or its text) through parse, analysis (for its redactor), input and evaluation. */
export function evaluatePlan(
  policy: CompiledPolicy,
  plan: unknown,
  stack: PolicyStack = DEV_STACK,
  kind: RunKind = 'drift',
): Evaluated {
  const parsed = parsePlanJson(typeof plan === 'string' ? plan : JSON.stringify(plan));
  const { redactor } = analyzePlan(parsed);
  const input = buildPolicyInput(parsed, redactor, stack, kind);
  return { input, evaluation: evaluatePolicies(policy, input) };
}

/** No secret (distinctive enough to be masked inside text) in the input nor in any finding. */
export function expectNoSecretIn(evaluated: Evaluated, secrets: Iterable<SecretValue>): void {
  const texts = [JSON.stringify(evaluated.input), JSON.stringify(evaluated.evaluation)];
  for (const value of secrets) {
    const secret = String(value);
    if (!isDistinctiveSecret(secret)) continue;
    for (const text of texts) expect(text.includes(secret), `secret ${secret.slice(0, 2)}… leaked`).toBe(false);
  }
}

/** `rule@address` (or `rule` for plan findings), in order: the short form the tables compare. */
export function findingKeys(evaluation: PolicyEvaluation): string[] {
  return evaluation.findings.map((f) => (f.address === undefined ? f.rule : `${f.rule}@${f.address}`));
}
