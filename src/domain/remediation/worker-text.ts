/**
 * Text from a worker's answer that the control plane shows: the names and the guidance of a remediation
 * plan, which the PR body lists. A worker runs the stack's modules, so its answer is what a module could
 * have written: it is shown as one line of text, whatever it holds (the renderers escape it for their
 * medium). Pure.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function hasControlCharacter(text: string): boolean {
  return new RegExp(CONTROL.source).test(text);
}

/** A name (a path, an address, an attribute) as one line: control characters replaced, cut to `max`. */
export function shownName(text: string, max: number): string {
  return cut(text.replace(CONTROL, '\uFFFD'), max);
}

/** A message of lines (a terraform error's tail): control characters but line breaks and tabs replaced, cut. */
export function shownLines(text: string, max: number): string {
  return cut(
    text.replace(CONTROL, (c) => (c === '\n' || c === '\t' ? c : '\uFFFD')),
    max,
  );
}

/**
 * Prose (a reason, a guidance) as one line, cut to `max`: a line break in a Markdown list item could end
 * it and start a heading, a table or an image of the worker's making. This process's own guidance keeps
 * the lines of a map value, which it lays out itself.
 */
export function shownProse(text: string, max: number): string {
  return cut(text.replace(/\s*[\r\n]+\s*/g, ' ').replace(CONTROL, '\uFFFD'), max);
}
