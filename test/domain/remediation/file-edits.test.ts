import { describe, expect, it } from 'vitest';
import { createFileEdits } from '../../../src/domain/remediation/file-edits.js';
import { rewriteAttribute } from '../../../src/domain/remediation/rewrite-attribute.js';

const FILE = `# first
resource "aws_s3_object" "a" {
  key  = "a"
  tags = { Name = "a" }
}

resource "aws_s3_object" "b" {
  key = "b"
  dynamic "grant" {
    for_each = []
    content {}
  }
}

resource "aws_s3_object" "c" {
  key = "c"
}
`;

const edit = (resourceName: string, path: (string | number)[], value: unknown) => ({
  resourceType: 'aws_s3_object',
  resourceName,
  path,
  value,
});

describe('createFileEdits', () => {
  it('gives what rewriting the whole file edit by edit gives, for edits that move later blocks', () => {
    const steps = [
      edit('a', ['tags', 'Owner'], 'team-with-a-long-name'),
      edit('c', ['key'], 'c-renamed'),
      edit('a', ['key'], 'a2'),
      edit('c', ['content_type'], 'text/plain'),
    ];
    const edits = createFileEdits([{ path: 'main.tf', text: FILE }]);
    let whole = FILE;
    for (const step of steps) {
      const expected = rewriteAttribute(whole, step);
      expect(expected.ok).toBe(true);
      if (expected.ok) whole = expected.text;
      expect(edits.rewrite('main.tf', step)).toEqual({ ok: true, text: whole });
    }
    expect(edits.changed()).toEqual([{ path: 'main.tf', text: whole }]);
  });

  it('names the file’s own lines in a refusal, after earlier edits added lines above', () => {
    const edits = createFileEdits([{ path: 'main.tf', text: FILE }]);
    expect(edits.rewrite('main.tf', edit('a', ['tags'], { Name: 'a', Owner: 'x', Team: 'y' }))).toMatchObject({
      ok: true,
    });
    const refused = edits.rewrite('main.tf', edit('b', ['grant', 'permission'], 'READ'));
    const direct = rewriteAttribute(edits.text('main.tf'), edit('b', ['grant', 'permission'], 'READ'));
    expect(refused).toEqual(direct);
    expect(refused).toEqual({
      ok: false,
      reason: 'aws_s3_object.b.grant.permission: grant blocks come from a dynamic block (line 13)',
    });
  });

  it('keeps CRLF line endings in a block too short to show them', () => {
    const text = 'resource "aws_s3_object" "a" {}\r\nresource "aws_s3_object" "b" {\r\n  key = "b"\r\n}\r\n';
    const edits = createFileEdits([{ path: 'main.tf', text }]);
    const result = edits.rewrite('main.tf', edit('a', ['key'], 'a'));
    expect(result).toMatchObject({ ok: true });
    expect(edits.text('main.tf')).not.toMatch(/[^\r]\n/);
  });

  it('leaves a resource declared twice, or not at all, to the whole-file rewrite and its reason', () => {
    const twice = `${FILE}\nresource "aws_s3_object" "c" {\n  key = "again"\n}\n`;
    const edits = createFileEdits([{ path: 'main.tf', text: twice }]);
    expect(edits.rewrite('main.tf', edit('c', ['key'], 'x'))).toEqual(rewriteAttribute(twice, edit('c', ['key'], 'x')));
    expect(edits.rewrite('main.tf', edit('zzz', ['key'], 'x'))).toEqual({
      ok: false,
      reason: 'no resource aws_s3_object.zzz in this file',
    });
    expect(edits.changed()).toEqual([]);
  });
});
