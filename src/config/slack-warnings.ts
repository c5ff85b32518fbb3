import { requirementFor } from '../domain/approvals/requirement.js';
import type { ConfigIssue } from '../domain/errors.js';
import { stackMatcher } from '../domain/stack-glob.js';
import type { DriftgateConfig } from './schema.js';

/**
 * What is valid but probably not meant, in the Slack and approvers sections: who may apply is granted
 * explicitly, so a stack no rule covers is silently alert-only, which `validate` should say out loud.
 */
export function slackWarnings(config: Pick<DriftgateConfig, 'slack' | 'approvers' | 'stacks'>): ConfigIssue[] {
  const warnings: ConfigIssue[] = [];
  const { slack, approvers, stacks } = config;
  if (slack && !approvers) {
    warnings.push({ path: 'approvers', message: 'is not set: nobody can apply from Slack, every stack is alert only' });
  }
  if (approvers) {
    const uncovered = stacks.filter((s) => !requirementFor(s, approvers)).map((s) => s.name);
    if (uncovered.length) {
      const shown =
        uncovered.slice(0, 10).join(', ') + (uncovered.length > 10 ? ` and ${uncovered.length - 10} more` : '');
      warnings.push({
        path: 'approvers.rules',
        message: `no rule covers ${shown}: their plans cannot be applied from Slack`,
      });
    }
    for (const [name, group] of Object.entries(approvers.groups)) {
      if (group.users.length === 0 && group.usergroups.length === 0) {
        warnings.push({
          path: `approvers.groups.${name}`,
          message: 'has no users and no usergroups: it grants nobody',
        });
      }
    }
  }
  slack?.channels.forEach((rule, i) => {
    if (!stacks.some((s) => stackMatcher(rule.match)(s.name))) {
      warnings.push({ path: `slack.channels[${i}].match`, message: `${JSON.stringify(rule.match)} matches no stack` });
    }
  });
  return warnings;
}
