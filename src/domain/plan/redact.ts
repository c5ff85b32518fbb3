/**
 * Secrets of a plan and the redactor that hides them. Terraform marks values sensitive, but copies of a
 * secret travel unmarked (terraform_data's `output` echoes a sensitive `input`; a provider may return
 * it in another attribute), so masking by mark alone leaks: the redactor masks by value too.
 */
import { SENSITIVE_PLACEHOLDER, type Redactor } from './model.js';
import type { PlanChange, PlanJson, PlanModuleConfig, PlanStateModule } from './schema.js';
import { buildSecretMatcher } from './secret-matcher.js';

/** A secret: any JSON scalar terraform can mark sensitive (a token, a PIN, a port, a flag). */
export type SecretValue = string | number | boolean;

/**
 * Whether a secret is searched for inside free text (terraform's output, errors, log lines). A short or
 * plain value (`admin`, `1`, `true`, a 4-digit PIN) would blank every such fragment of every line and of
 * driftgate's own words while hiding nearly nothing; it is still masked wherever a whole value equals it
 * and at every path marked sensitive. Searched: 8+ characters mixing at least two of letters, digits and
 * other characters, or any 16+ characters.
 */
export function isDistinctiveSecret(text: string): boolean {
  if (text.length >= 16) return true;
  if (text.length < 8) return false;
  const kinds = Number(/\p{L}/u.test(text)) + Number(/\p{N}/u.test(text)) + Number(/[^\p{L}\p{N}]/u.test(text));
  return kinds >= 2;
}

/**
 * Attributes a resource type copies from another without terraform marking the copy: the copy is as
 * sensitive as its source, whatever its type (terraform_data's `output` mirrors its `input`).
 */
const MIRRORED_ATTRIBUTES: Readonly<Record<string, readonly (readonly [from: string, to: string])[]>> = {
  terraform_data: [['input', 'output']],
};

/**
 * `mark` (a *_sensitive shape) with the marks of mirrored attributes copied onto their copies; a copy
 * still unknown (`unknown`, the after_unknown shape) stays `(known after apply)`.
 */
export function withMirroredMarks(type: string, mark: unknown, unknown?: unknown): unknown {
  const pairs = MIRRORED_ATTRIBUTES[type];
  if (!pairs || typeof mark !== 'object' || mark === null || Array.isArray(mark)) return mark;
  let out: Record<string, unknown> | undefined;
  for (const [from, to] of pairs) {
    const source = (mark as Record<string, unknown>)[from];
    if (!source || (mark as Record<string, unknown>)[to] === true) continue;
    if (typeof unknown === 'object' && unknown !== null && (unknown as Record<string, unknown>)[to] === true) continue;
    (out ??= { ...mark })[to] = source;
  }
  return out ?? mark;
}

/** Every scalar under `value` where `mark` (terraform's *_sensitive shape) says sensitive. */
function collectMarked(value: unknown, mark: unknown, into: Set<SecretValue>): void {
  if (mark === true) return collectScalars(value, into);
  if (typeof mark !== 'object' || mark === null || typeof value !== 'object' || value === null) return;
  if (Array.isArray(mark)) {
    if (!Array.isArray(value)) return;
    for (let i = 0; i < mark.length; i++) if (mark[i]) collectMarked(value[i], mark[i], into);
    return;
  }
  const v = value as Record<string, unknown>;
  for (const key in mark) {
    const m = (mark as Record<string, unknown>)[key];
    if (m) collectMarked(v[key], m, into);
  }
}

/** Every non-empty string, finite number and boolean under `value`. */
export function collectScalars(value: unknown, into: Set<SecretValue>): void {
  if (typeof value === 'string') {
    if (value !== '') into.add(value);
  } else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
    into.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectScalars(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const key in value) collectScalars((value as Record<string, unknown>)[key], into);
  }
}

function collectChange(
  change: Pick<PlanChange, 'before' | 'after' | 'before_sensitive' | 'after_sensitive'>,
  into: Set<SecretValue>,
  type = '',
): void {
  collectMarked(change.before, withMirroredMarks(type, change.before_sensitive), into);
  collectMarked(change.after, withMirroredMarks(type, change.after_sensitive), into);
}

function collectStateModule(module: PlanStateModule | undefined, into: Set<SecretValue>): void {
  if (!module) return;
  for (const resource of module.resources ?? []) collectMarked(resource.values, resource.sensitive_values, into);
  for (const child of module.child_modules ?? []) collectStateModule(child, into);
}

/** Sensitive variables: the root's values, defaults anywhere, constants passed into module calls. */
function collectDeclared(
  plan: PlanJson,
  module: PlanModuleConfig | undefined,
  isRoot: boolean,
  into: Set<SecretValue>,
): void {
  if (!module) return;
  for (const [name, variable] of Object.entries(module.variables ?? {})) {
    if (variable.sensitive !== true) continue;
    collectScalars(variable.default, into);
    if (isRoot) collectScalars(plan.variables?.[name]?.value, into);
  }
  for (const call of Object.values(module.module_calls ?? {})) {
    const child = call.module;
    for (const [name, variable] of Object.entries(child?.variables ?? {})) {
      const expression = call.expressions?.[name];
      if (variable.sensitive === true && typeof expression === 'object' && expression !== null) {
        collectScalars((expression as { constant_value?: unknown }).constant_value, into);
      }
    }
    collectDeclared(plan, child, false, into);
  }
}

/** Every scalar the plan marks or declares sensitive, anywhere. Never serialise the result. */
export function collectSecrets(plan: PlanJson): Set<SecretValue> {
  const secrets = new Set<SecretValue>();
  for (const rc of plan.resource_changes ?? []) collectChange(rc.change, secrets, rc.type);
  for (const rc of plan.resource_drift ?? []) collectChange(rc.change, secrets, rc.type);
  for (const output of Object.values(plan.output_changes ?? {})) collectChange(output, secrets);
  const prior = plan.prior_state?.values;
  for (const output of Object.values(prior?.outputs ?? {})) if (output.sensitive) collectScalars(output.value, secrets);
  collectStateModule(prior?.root_module, secrets);
  collectDeclared(plan, plan.configuration?.root_module, true, secrets);
  return secrets;
}

/**
 * Masks secrets by value: a whole value equal to a secret, whatever its type, and in text every occurrence
 * of a distinctive secret (see isDistinctiveSecret), overlapping occurrences as their union (see
 * secret-matcher.ts): no remainder of a longer or overlapping secret is left in clear, which a "longest
 * first" replacement alone would not guarantee.
 */
export function createRedactor(secrets: Iterable<SecretValue>): Redactor {
  const whole = new Set<SecretValue>();
  const searchable = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    whole.add(secret);
    const text = String(secret);
    if (!isDistinctiveSecret(text)) continue;
    searchable.add(text);
    // Terraform and JSON quote strings with escapes: a secret holding `"` or a newline appears escaped, and
    // jsonencode() (Go's encoder) also writes < > & as \u003c \u003e \u0026 inside a JSON-encoded attribute.
    const escaped = JSON.stringify(text).slice(1, -1);
    if (escaped !== text) searchable.add(escaped);
    const goEscaped = escaped.replace(
      /[<>&\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    if (goEscaped !== escaped) searchable.add(goEscaped);
  }
  const matcher = buildSecretMatcher(searchable);

  const redactInside = (text: string): string => (matcher ? matcher.replaceAll(text, SENSITIVE_PLACEHOLDER) : text);
  const redact = (text: string): string => (whole.has(text) ? SENSITIVE_PLACEHOLDER : redactInside(text));

  // Copy-on-write: a value with nothing to mask comes back as the same object.
  const redactValue = (value: unknown): unknown => {
    if (typeof value === 'string') return redact(value);
    if (typeof value === 'number' || typeof value === 'boolean')
      return whole.has(value) ? SENSITIVE_PLACEHOLDER : value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = redactValue(value[i]);
        if (item !== value[i]) (out ??= value.slice())[i] = item;
      }
      return out ?? value;
    }
    if (typeof value === 'object' && value !== null) {
      let changed = false;
      const entries = Object.entries(value).map(([key, item]) => {
        // A key is a name, not a value: only a distinctive secret is masked inside it.
        const entry: [string, unknown] = [redactInside(key), redactValue(item)];
        changed ||= entry[0] !== key || entry[1] !== item;
        return entry;
      });
      return changed ? Object.fromEntries(entries) : value;
    }
    return value;
  };

  return {
    size: whole.size,
    redact: (text) => (whole.size === 0 ? text : redact(text)),
    redactInside: (text) => (whole.size === 0 ? text : redactInside(text)),
    redactValue: <T>(value: T): T => (whole.size === 0 ? value : (redactValue(value) as T)),
  };
}

/** One redactor that masks what any of `redactors` masks (a plan's secrets with its stack's config secrets). */
export function combineRedactors(redactors: readonly Redactor[]): Redactor {
  if (redactors.length === 1) return redactors[0]!;
  return {
    size: redactors.reduce((n, r) => n + r.size, 0),
    redact: (text) => redactors.reduce((out, r) => r.redact(out), text),
    redactInside: (text) => redactors.reduce((out, r) => r.redactInside(out), text),
    redactValue: <T>(value: T): T => redactors.reduce((out, r) => r.redactValue(out), value),
  };
}
