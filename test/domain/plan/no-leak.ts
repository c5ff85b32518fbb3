/** The assertion every analysis test ends with: no secret survives into analysis or rendered text. */
import { expect } from 'vitest';
import type { PlanAnalysis } from '../../../src/domain/plan/model.js';
import { isDistinctiveSecret, type SecretValue } from '../../../src/domain/plan/redact.js';
import { renderPlanText } from '../../../src/domain/plan/render-text.js';

export function expectNoSecret(analysis: PlanAnalysis, secrets: Iterable<SecretValue>): void {
  const texts = [
    JSON.stringify(analysis),
    renderPlanText(analysis),
    renderPlanText(analysis, { color: true, maxResources: 3 }),
  ];
  for (const value of secrets) {
    const secret = String(value);
    if (!isDistinctiveSecret(secret)) continue;
    for (const text of texts) expect(text.includes(secret), `secret ${secret.slice(0, 2)}… leaked`).toBe(false);
  }
}
