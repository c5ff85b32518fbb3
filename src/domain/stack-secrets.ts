/**
 * What a stack's config hands terraform is secret from the first command: its vars, env and backend
 * config (values from `${ENV}` among them) and the values of its varFiles. terraform quotes a variable's
 * value in an error (a failed validation) long before any plan marks it sensitive.
 */
import { collectScalars, type SecretValue } from './plan/redact.js';
import type { Stack } from './stack.js';

/** A varFile's text, with its path (`.json` files are JSON, others HCL). */
export interface VarFileText {
  path: string;
  text: string;
}

// HCL string literals ("…" with escapes) and the bare scalars after `=`: enough to find a tfvars file's
// values without an HCL parser (a map key in quotes is taken too: masking it costs little).
const HCL_STRING = /"((?:[^"\\\n]|\\.)*)"/g;
const HCL_SCALAR = /=\s*(-?\d+(?:\.\d+)?|true|false)\s*(?:$|[,}\]#\n])/gm;

function unescapeHcl(literal: string): string {
  try {
    return JSON.parse(`"${literal}"`) as string;
  } catch {
    return literal;
  }
}

export function varFileSecrets(file: VarFileText, into: Set<SecretValue>): void {
  if (file.path.endsWith('.json')) {
    try {
      collectScalars(JSON.parse(file.text), into);
    } catch {
      // terraform itself reports a malformed var file; its text is still masked as it is written.
      if (file.text.trim() !== '') into.add(file.text.trim());
    }
    return;
  }
  for (const m of file.text.matchAll(HCL_STRING)) if (m[1]) into.add(unescapeHcl(m[1]));
  for (const m of file.text.matchAll(HCL_SCALAR)) {
    const raw = m[1]!;
    into.add(raw === 'true' ? true : raw === 'false' ? false : Number(raw));
    into.add(raw);
  }
}

/** Every value the config gives `stack`, with those of its varFiles and any `${ENV}` substitution. */
export function stackConfigSecrets(
  stack: Stack,
  varFiles: readonly VarFileText[],
  interpolated: readonly string[] = [],
): Set<SecretValue> {
  const secrets = new Set<SecretValue>();
  collectScalars(stack.vars, secrets);
  // A var reaches terraform as text (TF_VAR_*): its text is a secret as well as its typed value.
  for (const value of Object.values(stack.vars)) if (typeof value !== 'string') secrets.add(JSON.stringify(value));
  collectScalars(stack.env, secrets);
  collectScalars(stack.backendConfig, secrets);
  for (const file of varFiles) varFileSecrets(file, secrets);
  for (const value of interpolated) if (value !== '') secrets.add(value);
  return secrets;
}
