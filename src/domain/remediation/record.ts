/**
 * A remediation PR driftgate opened: one per stack and drift fingerprint, so the same drift asked for
 * twice links the PR already open instead of opening another.
 */
export interface RemediationRecord {
  stack: string;
  fingerprint: string;
  /** The run whose plan was codified. */
  runId: string;
  repository: string;
  branch: string;
  prNumber: number;
  prUrl: string;
  /** Who asked for it: a Slack user id, or `cli`. */
  requestedBy: string;
  createdAt: Date;
  /** Attributes written into the code, and findings left for a person. */
  codified: number;
  leftForPerson: number;
}
