import { describe, expect, it } from 'vitest';
import { decodeString, tokenize, tokenText } from '../../../src/domain/remediation/hcl-tokens.js';

const kinds = (text: string) => tokenize(text).map((t) => `${t.kind}:${tokenText(text, t)}`);

describe('tokenize', () => {
  it.each([
    {
      name: 'template nesting a string with a brace',
      text: 'a = "x${f("}")}y"',
      want: ['ident:a', 'punct:=', 'string:"x${f("}")}y"'],
    },
    { name: 'escaped template sequences', text: '"$${a} %%{b} \\""', want: ['string:"$${a} %%{b} \\""'] },
    {
      name: 'heredoc holding braces and a block header',
      text: 'c = <<EOF\n}\nresource "x" "y" {\nEOF\n',
      want: ['ident:c', 'punct:=', 'heredoc:<<EOF\n}\nresource "x" "y" {\nEOF', 'newline:\n'],
    },
    {
      name: 'indented heredoc',
      text: 'c = <<-EOT\n  x\n  EOT\n}',
      want: ['ident:c', 'punct:=', 'heredoc:<<-EOT\n  x\n  EOT', 'newline:\n', 'punct:}'],
    },
    {
      name: 'comments of all three kinds, CRLF',
      text: '# a }\r\n// b {\r\n/* c\r\n} */x',
      want: ['comment:# a }', 'newline:\r\n', 'comment:// b {', 'newline:\r\n', 'comment:/* c\r\n} */', 'ident:x'],
    },
    {
      name: 'operators and numbers',
      text: 'x == -1.5e3 => ...',
      want: ['ident:x', 'punct:==', 'punct:-', 'number:1.5e3', 'punct:=>', 'punct:...'],
    },
  ])('$name', ({ text, want }) => {
    expect(kinds(text)).toEqual(want);
  });

  it('marks interpolation, not its escapes', () => {
    expect(tokenize('"${a}"')[0]?.interpolated).toBe(true);
    expect(tokenize('"%{ if a }b%{ endif }"')[0]?.interpolated).toBe(true);
    expect(tokenize('"$${a} %%{b}"')[0]?.interpolated).toBe(false);
  });

  it('counts lines through multi-line tokens', () => {
    expect(tokenize('a = <<EOF\nx\nEOF\nb = 1').find((t) => t.kind === 'ident' && t.start > 10)?.line).toBe(4);
  });
});

describe('decodeString', () => {
  it.each([
    ['"a\\"b\\\\c\\n"', 'a"b\\c\n'],
    ['"$${x} %%{y}"', '${x} %{y}'],
    ['"\\u00e9\\U0001F600"', 'é😀'],
  ])('%s', (raw, value) => {
    expect(decodeString(raw)).toBe(value);
  });
});
