/**
 * Message templates: text with `{{ expr }}` parts, each a CEL expression evaluated in the rule's
 * context. The first `}}` after a `{{` ends the part (a CEL map literal inside one needs a space: `} }`).
 */
import { compileExpression, describeAt, errorSummary, formatCelValue, type Evaluator } from './cel.js';
import type { PolicyRule } from './model.js';

type Part = string | Evaluator;

export interface MessageTemplate {
  parts: readonly Part[];
}

export type CompiledTemplate = { ok: true; template: MessageTemplate } | { ok: false; messages: string[] };

export function compileTemplate(scope: PolicyRule['scope'], text: string): CompiledTemplate {
  const parts: Part[] = [];
  const messages: string[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{{', at);
    if (open < 0) break;
    const close = text.indexOf('}}', open + 2);
    if (close < 0) {
      messages.push(describeAt(text, open, '"{{" is not closed by "}}"'));
      break;
    }
    if (open > at) parts.push(text.slice(at, open));
    const source = text.slice(open + 2, close);
    if (source.trim() === '') {
      messages.push(describeAt(text, open, 'empty "{{ }}"'));
    } else {
      const compiled = compileExpression(scope, source, { text, offset: open + 2 });
      if (compiled.ok) parts.push(compiled.evaluate);
      else messages.push(compiled.message);
    }
    at = close + 2;
  }
  if (at < text.length && messages.length === 0) parts.push(text.slice(at));
  return messages.length ? { ok: false, messages } : { ok: true, template: { parts } };
}

export interface RenderedMessage {
  text: string;
  /** The first part that threw: the text shows `(?)` in its place. */
  error?: string;
}

export function renderTemplate(template: MessageTemplate, context: Record<string, unknown>): RenderedMessage {
  if (template.parts.length === 1 && typeof template.parts[0] === 'string') return { text: template.parts[0] };
  let text = '';
  let error: string | undefined;
  for (const part of template.parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    try {
      text += formatCelValue(part(context));
    } catch (err) {
      error ??= errorSummary(err);
      text += '(?)';
    }
  }
  return error === undefined ? { text } : { text, error };
}
