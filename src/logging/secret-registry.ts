/** Anything that masks secrets in text; a plan's Redactor is one. */
export interface TextRedactor {
  redact(text: string): string;
}

export interface SecretRegistry {
  /** Secrets a plan of `stack` showed. */
  add(stack: string, redactor: TextRedactor): void;
  /** `stack`'s secrets (its config's, then its plans') in a text of that stack; every stack's without one. */
  redact(text: string, stack?: string): string;
  /** How many plan redactors are kept now. */
  readonly size: number;
}

export interface SecretRegistryOptions {
  max?: number;
  /** Each stack's secrets known before any plan (its config and varFiles): kept for the process's life. */
  base?: ReadonlyMap<string, TextRedactor>;
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
export function createSecretRegistry(options: SecretRegistryOptions = {}): SecretRegistry {
  const max = Math.max(1, options.max ?? 1000);
  const base = options.base ?? new Map<string, TextRedactor>();
  // A Map keeps insertion order: re-adding moves a redactor to the newest end.
  const recent = new Map<TextRedactor, string>();
  return {
    add(stack, redactor) {
      recent.delete(redactor);
      recent.set(redactor, stack);
      while (recent.size > max) recent.delete(recent.keys().next().value!);
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
