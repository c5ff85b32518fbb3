/**
 * Making untrusted text safe for Slack mrkdwn. Stack names, plan addresses and values, errors, stderr
 * and reasons typed by users all reach messages; Slack turns `<!channel>` into a ping and
 * `<https://evil|click>` into a disguised link, so `&`, `<` and `>` are always escaped. Inside code
 * spans and blocks a backtick would end the code early and let the rest be read as mrkdwn, so backticks
 * there become a look-alike character.
 */

/** `&`, `<`, `>` as Slack's entities: the only characters Slack's parser treats as control. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** U+02CB MODIFIER LETTER GRAVE ACCENT: reads like a backtick, cannot close a code span. */
const BACKTICK_LOOKALIKE = '\u02cb';

/** Text for inside a code span or block: escaped, with no backtick left to break out. */
export function escapeCode(text: string): string {
  return escapeMrkdwn(text).replaceAll('`', BACKTICK_LOOKALIKE);
}

/** An inline code span of untrusted text, on one line. */
export function code(text: string): string {
  return `\`${escapeCode(text.replace(/\s*\n\s*/g, ' '))}\``;
}

/** Cuts text to `max` characters with an ellipsis. For plain_text and already escaped mrkdwn alike. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never cut an entity (`&amp;`) in half: a stray `&` would show as text, but a half entity looks broken.
  let cut = text.slice(0, Math.max(0, max - 1));
  const amp = cut.lastIndexOf('&');
  if (amp >= 0 && amp > cut.length - 5 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
  return `${cut}…`;
}

const ESCAPED_LENGTH: Record<string, number> = { '&': 5, '<': 4, '>': 4 };
/** Fences (` ``` ` and newlines) plus the longest "earlier characters cut" note. */
const TAIL_OVERHEAD = 60;

/**
 * The end of an untrusted text as a fenced code block of at most `max` characters (fences included),
 * keeping the last lines: the end of stderr or of an apply log is where the error is.
 */
export function codeBlockTail(text: string, max: number): string {
  const trimmed = text.replace(/\s+$/, '');
  if (!trimmed) return '```\n(no output)\n```';
  const whole = `\`\`\`\n${escapeCode(trimmed)}\n\`\`\``;
  if (whole.length <= max) return whole;
  const budget = max - TAIL_OVERHEAD;
  let used = 0;
  let start = trimmed.length;
  while (start > 0) {
    const cost = ESCAPED_LENGTH[trimmed[start - 1]!] ?? 1;
    if (used + cost > budget) break;
    used += cost;
    start -= 1;
  }
  // Start at a line boundary when one is near, so the first line shown is whole.
  const newline = trimmed.indexOf('\n', start);
  if (newline >= 0 && newline - start < 200 && newline < trimmed.length - 1) start = newline + 1;
  return `\`\`\`\n… (${start} earlier characters cut)\n${escapeCode(trimmed.slice(start))}\n\`\`\``;
}

/** A Slack user id (`U…`, `W…`) as a mention; anything else (`system`, `cli:alice`) as escaped text. */
export function userRef(id: string): string {
  return /^[UW][A-Z0-9]+$/.test(id) ? `<@${id}>` : escapeMrkdwn(id);
}

/**
 * A mention from config (`<!subteam^S123>`, `<!subteam^S123|@oncall>`, `<@U123>`, `<!here>`): kept only
 * in those shapes, so a config value cannot smuggle a link or `<!channel>` into an alert.
 */
export function safeMention(mention: string): string | undefined {
  const ok = /^<!subteam\^[A-Z0-9]+(\|@?[\w.-]+)?>$|^<@[UW][A-Z0-9]+>$|^<!here>$/.test(mention.trim());
  return ok ? mention.trim() : undefined;
}

/** An https link with an escaped label; anything that is not a plain https URL is shown as text. */
export function safeLink(url: string, label: string): string {
  return /^https:\/\/[^\s<>|]+$/.test(url) ? `<${url}|${escapeMrkdwn(label).replaceAll('|', '¦')}>` : escapeMrkdwn(url);
}
