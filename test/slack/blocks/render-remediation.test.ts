import { describe, expect, it } from 'vitest';
import type { RemediationSkip } from '../../../src/domain/remediation/plan-remediation.js';
import type { RemediationRecord } from '../../../src/domain/remediation/record.js';
import {
  renderNothingToCodify,
  renderRemediationMerged,
  renderRemediationOpened,
} from '../../../src/slack/blocks/render-remediation.js';
import { textOf } from '../../e2e/fixtures.js';
import { expectValidMessage } from './helpers.js';

const record: RemediationRecord = {
  stack: 'prod/db',
  fingerprint: 'f'.repeat(64),
  runId: 'r_1',
  repository: 'acme/infra',
  branch: 'driftgate/prod/db/ffffffffffff',
  prNumber: 7,
  prUrl: 'https://github.com/acme/infra/pull/7',
  requestedBy: 'U0ADA',
  createdAt: new Date('2026-01-01T00:00:00Z'),
  codified: 3,
  leftForPerson: 1,
};

describe('remediation thread replies', () => {
  it('names who asked, the PR, the branch and what is left', () => {
    const message = renderRemediationOpened(record, 'U0ADA');
    expectValidMessage(message);
    const text = textOf(message);
    expect(text).toContain(
      '<@U0ADA> opened remediation PR <https://github.com/acme/infra/pull/7|#7>: 3 attributes written into the code, 1 left for a person (listed in the PR)',
    );
    expect(text).toContain('`driftgate/prod/db/ffffffffffff`');
    expect(textOf(renderRemediationOpened({ ...record, leftForPerson: 0 }, 'U0ADA'))).not.toContain(
      'left for a person',
    );
  });

  it('links the PR already open, and says a merged one is being checked', () => {
    expect(textOf(renderRemediationOpened(record, 'U0BOB', true))).toContain(
      '<@U0BOB> asked for a remediation PR: <https://github.com/acme/infra/pull/7|#7> is already open for this drift.',
    );
    const merged = renderRemediationMerged(record, 'U0BOB');
    expectValidMessage(merged);
    expect(textOf(merged)).toContain('is merged already. driftgate checks prod/db again now');
  });

  it('lists at most ten findings for a person, escaped, and counts the rest', () => {
    const skips: RemediationSkip[] = Array.from({ length: 12 }, (_, i) => ({
      address: `aws_s3_object.o${i}`,
      attribute: 'content_type',
      code: 'reference',
      reason: 'set from var.x',
      guidance: `set var.x to "<!channel> & ${i}"`,
    }));
    const message = renderNothingToCodify('prod/db', skips);
    expectValidMessage(message);
    const text = textOf(message);
    expect(text).toContain('`aws_s3_object.o9.content_type`');
    expect(text).not.toContain('aws_s3_object.o10');
    expect(text).toContain('…and 2 more');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('&lt;!channel&gt; &amp; 0');
  });
});
