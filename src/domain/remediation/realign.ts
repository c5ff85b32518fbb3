/**
 * `terraform fmt` aligns the `=` of consecutive single-line attributes (and the trailing comments of
 * consecutive commented lines). An edit that adds a key or changes a value's length can leave a run
 * misaligned, so after an edit the runs around the edited lines are re-padded the way fmt would; runs
 * elsewhere in the file are not touched, even when they were never fmt-clean.
 */
import { type Token, tokenize, tokenText } from './hcl-tokens.js';

interface LineCells {
  /** Offset where the padding before `=` (or the comment) starts, and where `=` (or the comment) is. */
  padFrom: number;
  at: number;
  /** Column of `padFrom` on its line. */
  column: number;
  /** An `=` opening a multi-line value: fmt gives it one space and ends the run there. */
  alone?: boolean;
}

const BRACKET_CHANGE: Record<string, number> = { '{': 1, '[': 1, '(': 1, '}': -1, ']': -1, ')': -1 };

/**
 * The tokens of each line as fmt sees lines: a heredoc or a multi-line comment is one token, so its
 * line runs on to the newline after it. Each line also records the physical line it starts on.
 */
function formatLines(text: string): { first: number; last: number; toks: Token[] }[] {
  const lines: { first: number; last: number; toks: Token[] }[] = [];
  let current = { first: 1, last: 1, toks: [] as Token[] };
  for (const t of tokenize(text)) {
    if (t.kind === 'newline') {
      lines.push(current);
      current = { first: t.line + 1, last: t.line + 1, toks: [] };
      continue;
    }
    current.toks.push(t);
    current.last = t.line + text.slice(t.start, t.end).split('\n').length - 1;
  }
  lines.push(current);
  return lines;
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The `=` cell of a line as fmt sees it: an `=` after the first token whose right side closes its brackets. */
function assignCell(text: string, toks: Token[]): LineCells | undefined {
  const body = toks[toks.length - 1]?.kind === 'comment' ? toks.slice(0, -1) : toks;
  const eq = body.findIndex((t, i) => i > 0 && t.kind === 'punct' && tokenText(text, t) === '=');
  if (eq < 0) return undefined;
  let net = 0;
  for (const t of body.slice(eq)) {
    if (t.kind === 'heredoc') break;
    if (t.kind === 'punct') net += BRACKET_CHANGE[tokenText(text, t)] ?? 0;
  }
  const padFrom = body[eq - 1]!.end;
  return { padFrom, at: body[eq]!.start, column: padFrom - lineStartOf(text, padFrom), alone: net !== 0 };
}

function commentCell(text: string, toks: Token[]): LineCells | undefined {
  const last = toks[toks.length - 1];
  if (toks.length < 2 || last?.kind !== 'comment' || text.slice(last.start, last.end).includes('\n')) return undefined;
  const padFrom = toks[toks.length - 2]!.end;
  return { padFrom, at: last.start, column: padFrom - lineStartOf(text, padFrom) };
}

/** Re-pad the runs of `cellOf` cells that contain any line in [fromLine, toLine]. */
function alignRuns(
  text: string,
  fromLine: number,
  toLine: number,
  cellOf: (text: string, toks: Token[]) => LineCells | undefined,
): string {
  const lines = formatLines(text);
  const cells = lines.map((l) => (l.toks.length ? cellOf(text, l.toks) : undefined));
  const inWindow = (from: number, to: number) => lines[to]!.last >= fromLine && lines[from]!.first <= toLine;
  const edits: { from: number; to: number; pad: string }[] = [];
  const inRun = (i: number) => cells[i] !== undefined && !cells[i]!.alone;
  for (let line = 0; line < lines.length; line++) {
    const cell = cells[line];
    if (!cell) continue;
    if (cell.alone) {
      if (inWindow(line, line)) edits.push({ from: cell.padFrom, to: cell.at, pad: ' ' });
      continue;
    }
    let end = line;
    while (inRun(end + 1)) end++;
    if (inWindow(line, end)) {
      const run = cells.slice(line, end + 1) as LineCells[];
      const width = Math.max(...run.map((c) => c.column)) + 1;
      for (const c of run) edits.push({ from: c.padFrom, to: c.at, pad: ' '.repeat(width - c.column) });
    }
    line = end;
  }
  let out = text;
  for (const e of edits.reverse()) out = out.slice(0, e.from) + e.pad + out.slice(e.to);
  return out;
}

/** Align `=` then trailing comments around lines [fromLine, toLine] (1-based) of `text`. */
export function realign(text: string, fromLine: number, toLine: number): string {
  const window = [Math.max(1, fromLine - 1), toLine + 1] as const;
  const assigned = alignRuns(text, window[0], window[1], assignCell);
  return alignRuns(assigned, window[0], window[1], commentCell);
}
