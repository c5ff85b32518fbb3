/** The remediation PR's branch, title, body and commit message, from real codify plans. */
import { describe, expect, it } from 'vitest';
import { analyzePlan, type PlanJson } from '../../../src/domain/plan/index.js';
import { planRemediation, type StackFile } from '../../../src/domain/remediation/plan-remediation.js';
import {
  pullRequestTitle,
  remediationBranch,
  remediationPullRequestText,
} from '../../../src/domain/remediation/pull-request.js';
import { driftPlan } from './drift-plans.js';

const SECRET = 'hunter2-correct-horse';
const FINGERPRINT = '3f9a0c1d2e4b5a6978877665544332211';

const MAIN_TF = `resource "aws_s3_object" "site" {
  bucket       = "b"
  content_type = "text/plain"
  content      = "old-secret-value"
  acl          = var.acl
  tags = {
    Name = "site"
  }
}

resource "aws_s3_object" "logo" {
  bucket       = "b"
  content_type = "image/gif"
}
`;

function drifted(): PlanJson {
  return driftPlan([
    {
      address: 'aws_s3_object.site',
      real: {
        bucket: 'b',
        content_type: 'text/html',
        content: SECRET,
        acl: 'public-read',
        tags: { Name: 'site-`prod`' },
      },
      code: {
        bucket: 'b',
        content_type: 'text/plain',
        content: 'old-secret-value',
        acl: 'private',
        tags: { Name: 'site' },
      },
      expressions: {
        bucket: { constant_value: 'b' },
        content_type: { constant_value: 'text/plain' },
        content: { constant_value: 'old-secret-value' },
        acl: { references: ['var.acl'] },
        tags: { constant_value: { Name: 'site' } },
      },
      sensitive: { content: true },
    },
    {
      address: 'aws_s3_object.logo',
      real: { bucket: 'b', content_type: 'image/png' },
      code: { bucket: 'b', content_type: 'image/gif' },
      expressions: { bucket: { constant_value: 'b' }, content_type: { constant_value: 'image/gif' } },
    },
  ]);
}

function textFor(
  plan: PlanJson,
  files: StackFile[] = [{ path: 'main.tf', text: MAIN_TF }],
  extra: { threadUrl?: string } = {},
) {
  const { analysis, redactor } = analyzePlan(plan);
  const remediation = planRemediation(plan, files, { redactor });
  const text = remediationPullRequestText({
    stack: 'prod/web',
    fingerprint: FINGERPRINT,
    runId: 'r-20261203-abc',
    commitSha: 'a'.repeat(40),
    plan: remediation,
    analysis,
    redactor,
    requestedBy: '@ada in Slack',
    ...extra,
  });
  return { text, remediation };
}

describe('remediationBranch', () => {
  it('is driftgate/<stack>/<12 characters of the fingerprint>', () => {
    expect(remediationBranch('prod/networking', FINGERPRINT)).toBe('driftgate/prod/networking/3f9a0c1d2e4b');
  });

  it('never makes a ref git refuses from a stack name', () => {
    expect(remediationBranch('a..b/.hidden/x.lock', FINGERPRINT)).toBe('driftgate/a.b/_hidden/x_lock/3f9a0c1d2e4b');
  });
});

describe('remediationPullRequestText', () => {
  it('titles the PR with what was codified, in singular and plural', () => {
    const { text, remediation } = textFor(drifted());
    expect(remediation.edits.map((e) => `${e.address}.${e.path.join('.')}`)).toEqual([
      'aws_s3_object.site.content_type',
      'aws_s3_object.site.tags.Name',
      'aws_s3_object.logo.content_type',
    ]);
    expect(text.title).toBe('Accept drift in prod/web: 3 attributes in 2 resources');
    expect(pullRequestTitle('x', { ...remediation, edits: remediation.edits.slice(2) })).toBe(
      'Accept drift in x: 1 attribute in 1 resource',
    );
  });

  it('lists what was codified, with the values before and after, and what was left with guidance', () => {
    const { text } = textFor(drifted(), undefined, { threadUrl: 'https://acme.slack.com/archives/C1/p123' });
    expect(text.body).toContain('### Codified (3 attributes in 2 resources)');
    expect(text.body).toContain('- `aws_s3_object.site` `content_type` in `main.tf`: `"text/plain"` → `"text/html"`');
    // A backtick inside a value gets a longer fence instead of breaking the markdown.
    expect(text.body).toContain('``"site-`prod`"``');
    expect(text.body).toContain('### Left for a person (2)');
    expect(text.body).toMatch(/- `aws_s3_object\.site` `content` \(not codified: sensitive\): .*by hand/);
    expect(text.body).toMatch(/- `aws_s3_object\.site` `acl` \(set from var\.acl\): set var\.acl .* to "public-read"/);
    expect(text.body).toContain(
      'Asked for by @\u200bada in Slack from [the drift alert in Slack](https://acme.slack.com/archives/C1/p123).',
    );
    expect(text.body).toContain('<!-- driftgate fingerprint=3f9a0c1d2e4b5a6978877665544332211 run=r-20261203-abc -->');
    expect(text.body).toContain('<summary>Drift as terraform planned it (sensitive values masked)</summary>');
    expect(text.body).toContain('aws_s3_object.logo');
  });

  it('shows a real value holding Markdown as text in a guidance: no link, image, mention or HTML of its own', () => {
    // Anyone who can set a tag in the console writes the value a guidance quotes. Failed before: the
    // brackets and the URL made a link in a PR driftgate opens.
    const value = '[urgent](https://evil.example/x) ![i](www.evil.example/i.png) @org/admins <b>';
    const plan = driftPlan([
      {
        address: 'aws_s3_object.site',
        real: { acl: value },
        code: { acl: 'private' },
        expressions: { acl: { references: ['var.acl'] } },
      },
    ]);
    const { text } = textFor(plan, [
      { path: 'main.tf', text: 'resource "aws_s3_object" "site" {\n  acl = var.acl\n}\n' },
    ]);
    const left = text.body.slice(text.body.indexOf('### Left for a person'), text.body.indexOf('After merging'));
    expect(left).toContain(
      'to "\\[urgent\\](https:\u200b//evil.example/x) !\\[i\\](www\u200b.evil.example/i.png) @\u200borg/admins &lt;b&gt;"',
    );
  });

  it('never writes a sensitive value into the title, the body or the commit message', () => {
    const { text } = textFor(drifted());
    for (const part of [text.title, text.body, text.commitMessage]) {
      expect(part).not.toContain(SECRET);
      expect(part).not.toContain('old-secret-value');
    }
  });

  it('names the codified attributes per resource in the commit message, values left out', () => {
    const { text } = textFor(drifted());
    expect(text.commitMessage).toBe(
      [
        'Accept drift in prod/web',
        '',
        `Codified by driftgate from run r-20261203-abc (planned at ${'a'.repeat(12)}):`,
        '- aws_s3_object.site: content_type, tags.Name',
        '- aws_s3_object.logo: content_type',
        '',
        '2 findings left for a person, listed in the pull request.',
      ].join('\n'),
    );
  });

  it('says when nothing was left for a person', () => {
    const plan = driftPlan([
      {
        address: 'aws_s3_object.logo',
        real: { content_type: 'image/png' },
        code: { content_type: 'image/gif' },
        expressions: { content_type: { constant_value: 'image/gif' } },
      },
    ]);
    const { text } = textFor(plan, [
      { path: 'main.tf', text: 'resource "aws_s3_object" "logo" {\n  content_type = "image/gif"\n}\n' },
    ]);
    expect(text.body).toContain('Nothing: every drifted attribute was codified.');
    expect(text.commitMessage).not.toContain('left for a person');
  });

  it('stays within GitHub’s body limit for a drift of hundreds of resources with long values', () => {
    const long = 'x'.repeat(400);
    const rows = Array.from({ length: 400 }, (_, i) => ({
      address: `aws_s3_object.o${i}`,
      real: { content_type: `text/x-real-${i}-${long}` },
      code: { content_type: 'text/plain' },
      expressions: { content_type: { constant_value: 'text/plain' } },
    }));
    const tf = rows
      .map((r) => `resource "aws_s3_object" "${r.address.split('.')[1]}" {\n  content_type = "text/plain"\n}\n`)
      .join('\n');
    const { text, remediation } = textFor(driftPlan(rows), [{ path: 'main.tf', text: tf }]);
    expect(remediation.edits).toHaveLength(400);
    expect(text.body.length).toBeLessThanOrEqual(65_536);
    expect(text.body).toMatch(/- … and \d+ more/);
    expect(text.title).toBe('Accept drift in prod/web: 400 attributes in 400 resources');
  });
});
