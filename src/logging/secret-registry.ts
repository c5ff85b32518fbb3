/** Anything that masks secrets in text; a plan's Redactor is one. */
export interface TextRedactor {
  redact(text: string): string;
}

export interface SecretRegistry extends TextRedactor {
  add(redactor: TextRedactor): void;
  /** How many redactors are kept now. */
  readonly size: number;
}

/**
 * The secrets of every plan seen so far, so the process-wide logger masks them in lines written later.
 *
 * Bounded to the `max` most recently added redactors: a server planning 300 stacks hourly would otherwise
 * keep every plan's secrets in memory forever and run thousands of redactors over every log line. A
 * stack's secrets come back with its next plan, which adds a fresh redactor, so what falls off the end is
 * the secrets of plans long superseded. 1000 covers a few plans of each stack in a large setup.
 */
export function createSecretRegistry(options: { max?: number } = {}): SecretRegistry {
  const max = Math.max(1, options.max ?? 1000);
  // A Set keeps insertion order: re-adding moves a redactor to the newest end.
  const redactors = new Set<TextRedactor>();
  return {
    add(redactor) {
      redactors.delete(redactor);
      redactors.add(redactor);
      while (redactors.size > max) redactors.delete(redactors.values().next().value!);
    },
    redact(text) {
      let out = text;
      for (const r of redactors) out = r.redact(out);
      return out;
    },
    get size() {
      return redactors.size;
    },
  };
}
