/** Anything that masks secrets in text; a plan's Redactor is one. */
export interface TextRedactor {
  redact(text: string): string;
}

export interface SecretRegistry<R extends TextRedactor = TextRedactor> {
  /** Secrets a plan of `stack` showed. */
  add(stack: string, redactor: R): void;
  /** The config secrets of a stack found after the start (serve's re-discovery): kept as `base` is. */
  keep(stack: string, redactor: R): void;
  /** `stack`'s redactors (its config's, then its plans'): for a text that must treat them as secret values. */
  forStack(stack: string): R[];
  /** `stack`'s secrets (its config's, then its plans') in a text of that stack; every stack's without one. */
  redact(text: string, stack?: string): string;
  /** How many plan redactors are kept now. */
  readonly size: number;
}

export interface SecretRegistryOptions<R extends TextRedactor> {
  max?: number;
  /** Each stack's secrets known before any plan (its config and varFiles): kept for the process's life. */
  base?: ReadonlyMap<string, R>;
}

/**
 * The secrets of every stack, so the process-wide logger and later texts mask them. A secret is masked in
 * its own stack's texts: another stack's output is not searched for it (a short value of one stack would
 * otherwise blank text everywhere).
 *
 * Plan redactors are bounded to the `max` most recently added: a server planning 300 stacks hourly would
 * otherwise keep every plan's secrets in memory forever and run thousands of redactors over every log
 * line. A stack's secrets come back with its next plan, which adds a fresh redactor, so what falls off the
 * end is the secrets of plans long superseded. 1000 covers a few plans of each stack in a large setup.
 */
export function createSecretRegistry<R extends TextRedactor = TextRedactor>(
  options: SecretRegistryOptions<R> = {},
): SecretRegistry<R> {
  const max = Math.max(1, options.max ?? 1000);
  const base = new Map<string, R>(options.base ?? []);
  // A Map keeps insertion order: re-adding moves a redactor to the newest end.
  const recent = new Map<R, string>();
  return {
    add(stack, redactor) {
      recent.delete(redactor);
      recent.set(redactor, stack);
      while (recent.size > max) recent.delete(recent.keys().next().value!);
    },
    keep(stack, redactor) {
      base.set(stack, redactor);
    },
    forStack(stack) {
      const own = base.get(stack);
      return [...(own ? [own] : []), ...[...recent].filter(([, owner]) => owner === stack).map(([r]) => r)];
    },
    redact(text, stack) {
      let out = text;
      if (stack === undefined) for (const r of base.values()) out = r.redact(out);
      else out = base.get(stack)?.redact(out) ?? out;
      for (const [r, owner] of recent) if (stack === undefined || owner === stack) out = r.redact(out);
      return out;
    },
    get size() {
      return recent.size;
    },
  };
}
