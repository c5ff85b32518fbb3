/**
 * The thread replies of "Open remediation PR": who asked and where the PR is, or, when nothing could be
 * written into the code, what a person has to do. Texts come from the codify plan, already masked.
 */
import type { RemediationSkip } from '../../domain/remediation/plan-remediation.js';
import type { RemediationRecord } from '../../domain/remediation/record.js';
import { code, escapeMrkdwn, safeLink, truncate, userRef } from './escape.js';
import { context, fallbackText, plural, section, type SlackMessage } from './message.js';

/** Findings listed in Slack; the rest are counted (a PR body has room for all of them). */
const MAX_LISTED = 10;

export function renderRemediationOpened(record: RemediationRecord, userId: string, existing = false): SlackMessage {
  const link = safeLink(record.prUrl, `#${record.prNumber}`);
  const what = existing
    ? `${userRef(userId)} asked for a remediation PR: ${link} is already open for this drift.`
    : `${userRef(userId)} opened remediation PR ${link}: ${plural(record.codified, 'attribute')} written into the code${record.leftForPerson ? `, ${record.leftForPerson} left for a person (listed in the PR)` : ''}.`;
  return {
    text: fallbackText(`Remediation PR #${record.prNumber} for ${record.stack}`),
    blocks: [
      section(`:hammer_and_wrench: ${what}`),
      context([
        `Branch ${code(record.branch)}. Merging it accepts the drift; driftgate then checks ${escapeMrkdwn(record.stack)} again.`,
      ]),
    ],
  };
}

export function renderRemediationMerged(record: RemediationRecord, userId: string): SlackMessage {
  const link = safeLink(record.prUrl, `#${record.prNumber}`);
  return {
    text: fallbackText(`Remediation PR #${record.prNumber} for ${record.stack} is merged`),
    blocks: [
      section(
        `:hammer_and_wrench: ${userRef(userId)} asked for a remediation PR: ${link} for this drift is merged already. driftgate checks ${escapeMrkdwn(record.stack)} again now; the alert says when the drift is resolved.`,
      ),
    ],
  };
}

function skipLine(skip: RemediationSkip): string {
  const where = skip.attribute ? `${skip.address}.${skip.attribute}` : skip.address;
  return `• ${code(truncate(where, 120))}: ${escapeMrkdwn(truncate(skip.guidance, 400))}`;
}

export function renderNothingToCodify(stack: string, skipped: readonly RemediationSkip[]): SlackMessage {
  const listed = skipped.slice(0, MAX_LISTED).map(skipLine);
  const more = skipped.length > MAX_LISTED ? [`…and ${skipped.length - MAX_LISTED} more`] : [];
  return {
    text: fallbackText(`Nothing in ${stack}'s drift can be written into the code automatically`),
    blocks: [
      section(
        `:hammer_and_wrench: No remediation PR: none of the drift in ${escapeMrkdwn(stack)} can be written into the code safely. What a person can do:`,
      ),
      section(truncate([...listed, ...more].join('\n'), 2900)),
    ],
  };
}
