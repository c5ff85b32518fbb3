/**
 * Secrets of a plan and the redactor that hides them. Terraform marks values sensitive, but copies of a
 * secret travel unmarked (terraform_data's `output` echoes a sensitive `input`; a provider may return
 * it in another attribute), so masking by mark alone leaks: the redactor masks by value too.
 */
import { SENSITIVE_PLACEHOLDER, type Redactor } from './model.js';
import type { PlanChange, PlanJson, PlanModuleConfig, PlanStateModule } from './schema.js';
import { buildSecretMatcher } from './secret-matcher.js';

/**
 * Secrets shorter than this are masked only where a whole value equals them, never inside free text:
 * a sensitive `"on"`, `"80"` or `"eu"` would otherwise blank every such fragment of every line, making
 * output unreadable, while hiding nearly nothing (a 3-character value is guessable from its context).
 */
export const MIN_SUBSTRING_SECRET_LENGTH = 4;

/** Every string under `value` where `mark` (terraform's *_sensitive shape) says sensitive. */
function collectMarked(value: unknown, mark: unknown, into: Set<string>): void {
  if (mark === true) return collectStrings(value, into);
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

function collectStrings(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    if (value !== '') into.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const key in value) collectStrings((value as Record<string, unknown>)[key], into);
  }
}

function collectChange(
  change: Pick<PlanChange, 'before' | 'after' | 'before_sensitive' | 'after_sensitive'>,
  into: Set<string>,
): void {
  collectMarked(change.before, change.before_sensitive, into);
  collectMarked(change.after, change.after_sensitive, into);
}

function collectStateModule(module: PlanStateModule | undefined, into: Set<string>): void {
  if (!module) return;
  for (const resource of module.resources ?? []) collectMarked(resource.values, resource.sensitive_values, into);
  for (const child of module.child_modules ?? []) collectStateModule(child, into);
}

/** Sensitive variables: the root's values, defaults anywhere, constants passed into module calls. */
function collectDeclared(
  plan: PlanJson,
  module: PlanModuleConfig | undefined,
  isRoot: boolean,
  into: Set<string>,
): void {
  if (!module) return;
  for (const [name, variable] of Object.entries(module.variables ?? {})) {
    if (variable.sensitive !== true) continue;
    collectStrings(variable.default, into);
    if (isRoot) collectStrings(plan.variables?.[name]?.value, into);
  }
  for (const call of Object.values(module.module_calls ?? {})) {
    const child = call.module;
    for (const [name, variable] of Object.entries(child?.variables ?? {})) {
      const expression = call.expressions?.[name];
      if (variable.sensitive === true && typeof expression === 'object' && expression !== null) {
        collectStrings((expression as { constant_value?: unknown }).constant_value, into);
      }
    }
    collectDeclared(plan, child, false, into);
  }
}

/** Every string value the plan marks or declares sensitive, anywhere. Never serialise the result. */
export function collectSecrets(plan: PlanJson): Set<string> {
  const secrets = new Set<string>();
  for (const rc of plan.resource_changes ?? []) collectChange(rc.change, secrets);
  for (const rc of plan.resource_drift ?? []) collectChange(rc.change, secrets);
  for (const output of Object.values(plan.output_changes ?? {})) collectChange(output, secrets);
  const prior = plan.prior_state?.values;
  for (const output of Object.values(prior?.outputs ?? {})) if (output.sensitive) collectStrings(output.value, secrets);
  collectStateModule(prior?.root_module, secrets);
  collectDeclared(plan, plan.configuration?.root_module, true, secrets);
  return secrets;
}

/**
 * Masks every occurrence of every secret, overlapping occurrences as their union (see
 * secret-matcher.ts): no remainder of a longer or overlapping secret is left in clear, which a
 * "longest first" replacement alone would not guarantee.
 */
export function createRedactor(secrets: Iterable<string>): Redactor {
  const whole = new Set<string>();
  const searchable = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    whole.add(secret);
    if (secret.length < MIN_SUBSTRING_SECRET_LENGTH) continue;
    searchable.add(secret);
    // Terraform and JSON quote strings with escapes: a secret holding `"` or a newline appears escaped.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) searchable.add(escaped);
  }
  const matcher = buildSecretMatcher(searchable);

  const redact = (text: string): string => {
    if (whole.has(text)) return SENSITIVE_PLACEHOLDER;
    if (!matcher || text.length < MIN_SUBSTRING_SECRET_LENGTH) return text;
    return matcher.replaceAll(text, SENSITIVE_PLACEHOLDER);
  };

  // Copy-on-write: a value with nothing to mask comes back as the same object.
  const redactValue = (value: unknown): unknown => {
    if (typeof value === 'string') return redact(value);
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
        const entry: [string, unknown] = [redact(key), redactValue(item)];
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
    redactValue: <T>(value: T): T => (whole.size === 0 ? value : (redactValue(value) as T)),
  };
}
