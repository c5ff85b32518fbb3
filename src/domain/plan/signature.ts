import { createHash } from 'node:crypto';

/**
 * What identifies a plan without `terraform show -json`: terraform's own rendering of it (every changed
 * attribute, the "changed outside of Terraform" section, outputs; sensitive values as "(sensitive value)"),
 * with the commit it ran at, the terraform that made it, and the policies that judged it. Two plans with
 * the same signature show a reviewer the same changes, so the analysis of the first serves the second.
 * What the rendering hides (a sensitive value, an attribute that does not change) is hidden from the
 * reviewer and from the analysis alike; the apply still applies the new saved plan, whose sha256 the
 * run records as before. The stdout holds values in clear: only its hash is kept.
 */
export interface PlanSignatureInput {
  stdout: string;
  commitSha?: string | undefined;
  terraformVersion: string;
  /** Digest of the config's policies (and ignore rules); '' without any. */
  policyDigest: string;
}

export function planSignature(input: PlanSignatureInput): string {
  const hash = createHash('sha256');
  for (const part of ['v1', input.terraformVersion, input.commitSha ?? '', input.policyDigest]) {
    hash.update(part);
    hash.update('\0');
  }
  // A plan's duration and the refresh order can differ between identical plans: they are not the plan.
  hash.update(renderedPlan(input.stdout));
  return hash.digest('hex');
}

/** The plan as terraform renders it, without the progress lines whose order and timings vary. */
function renderedPlan(stdout: string): string {
  return stdout
    .split('\n')
    .filter(
      (line) => !/^\S.*: (Refreshing state\.\.\.|Reading\.\.\.|Read complete after|Still reading\.\.\.)/.test(line),
    )
    .join('\n');
}
