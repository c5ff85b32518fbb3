/**
 * A small scanner over HCL native syntax that finds top-level blocks and attributes of a body. It is
 * not a parser: it only understands enough (quoted strings with nested `${...}` templates, heredocs,
 * `#`, `//` and block comments, bracket nesting) to know where blocks begin and end. Limits: JSON
 * syntax (`*.tf.json`) is not read; an attribute's value is kept as raw text; malformed HCL gives
 * partial results (terraform itself reports it properly).
 */

export type HclItem =
  | { kind: 'block'; type: string; labels: string[]; body: string }
  | { kind: 'attribute'; name: string; value: string };

const BLOCK_HEADER = /^\s*([A-Za-z_][\w-]*)((?:\s+(?:"(?:[^"\\]|\\.)*"|[A-Za-z_][\w-]*))*)\s*$/;
const LABEL = /"((?:[^"\\]|\\.)*)"|([A-Za-z_][\w-]*)/g;
const ATTRIBUTE = /^\s*([A-Za-z_][\w-]*)\s*=(?!=)\s*([\s\S]*?)\s*$/;
const HEREDOC = /<<-?([A-Za-z_][\w-]*)\r?\n/y;

/** Index just after the closing quote of the string opening at `start`. */
function skipString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else if ((c === '$' || c === '%') && text[i + 1] === '{') {
      if (text[i - 1] === c)
        i += 2; // `$${` / `%%{` are escapes, not templates
      else i = skipTemplate(text, i + 2);
    } else i++;
  }
  return i;
}

/** Index just after the `}` that closes a template opened before `start`. */
function skipTemplate(text: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < text.length && depth > 0) {
    const c = text[i];
    if (c === '"') {
      i = skipString(text, i);
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') depth--;
    i++;
  }
  return i;
}

/** Index of the end of the comment starting at `i`, or undefined when none starts there. */
function commentEnd(text: string, i: number): number | undefined {
  const c = text[i];
  if (c === '#' || (c === '/' && text[i + 1] === '/')) {
    const end = text.indexOf('\n', i);
    return end === -1 ? text.length : end;
  }
  if (c === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2);
    return end === -1 ? text.length : end + 2;
  }
  return undefined;
}

/** Index of the end of the heredoc starting at `i` (its terminator line), or undefined when none starts there. */
function heredocEnd(text: string, i: number): number | undefined {
  if (text[i] !== '<' || text[i + 1] !== '<') return undefined;
  HEREDOC.lastIndex = i;
  const m = HEREDOC.exec(text);
  if (!m) return undefined;
  const found = new RegExp(`^[ \\t]*${m[1]}[ \\t]*$`, 'm').exec(text.slice(HEREDOC.lastIndex));
  return found ? HEREDOC.lastIndex + found.index + found[0].length : text.length;
}

/** The text with comments blanked out (newlines kept), so attribute values come out clean. */
function blankComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const skip = text[i] === '"' ? skipString(text, i) : heredocEnd(text, i);
    if (skip !== undefined) {
      out += text.slice(i, skip);
      i = skip;
      continue;
    }
    const end = commentEnd(text, i);
    if (end !== undefined) {
      out += text.slice(i, end).replace(/[^\n]/g, ' ');
      i = end;
      continue;
    }
    out += text[i++];
  }
  return out;
}

function labelsOf(raw: string): string[] {
  return [...raw.matchAll(LABEL)].map((m) => m[1] ?? m[2] ?? '');
}

/** The top-level blocks and attributes of an HCL body (a file, or the inside of a block). */
export function scanHclBody(source: string): HclItem[] {
  const text = blankComments(source);
  const items: HclItem[] = [];
  let depth = 0;
  let stmtStart = 0;
  let block: { type: string; labels: string[]; bodyStart: number } | undefined;
  const endStatement = (end: number) => {
    const m = ATTRIBUTE.exec(text.slice(stmtStart, end));
    if (m) items.push({ kind: 'attribute', name: m[1]!, value: m[2]! });
    stmtStart = end + 1;
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      i = skipString(text, i);
      continue;
    }
    const heredoc = heredocEnd(text, i);
    if (heredoc !== undefined) {
      i = heredoc;
      continue;
    }
    if (c === '{' || c === '[' || c === '(') {
      const header = depth === 0 && c === '{' ? BLOCK_HEADER.exec(text.slice(stmtStart, i)) : null;
      if (header) block = { type: header[1]!, labels: labelsOf(header[2]!), bodyStart: i + 1 };
      depth++;
    } else if (c === '}' || c === ']' || c === ')') {
      depth = Math.max(0, depth - 1);
      if (depth === 0 && block && c === '}') {
        items.push({ kind: 'block', type: block.type, labels: block.labels, body: text.slice(block.bodyStart, i) });
        block = undefined;
        stmtStart = i + 1;
      }
    } else if (c === '\n' && depth === 0) {
      endStatement(i);
    }
    i++;
  }
  if (depth === 0) endStatement(text.length);
  return items;
}

/** `"./mod"` -> `./mod`; other expressions stay as written. */
export function unquote(value: string): string {
  const m = /^"((?:[^"\\]|\\.)*)"$/.exec(value.trim());
  return m ? m[1]! : value.trim();
}
