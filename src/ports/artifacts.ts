/**
 * Where saved plans, plan JSON and logs go. A saved plan and its JSON hold secrets in clear, so every
 * implementation keeps objects private (local: 0600 files in 0700 dirs; S3: server-side encryption).
 */
export interface StoredArtifact {
  key: string;
  sha256: string;
  size: number;
}

export interface ArtifactStore {
  /** Human description for logs and errors, e.g. `s3://bucket/prefix/` or `/var/lib/driftgate/artifacts`. */
  readonly location: string;
  put(key: string, body: Buffer | string): Promise<StoredArtifact>;
  /** Reads the object and checks its sha256; throws ArtifactIntegrityError on mismatch. */
  get(key: string, expectedSha256?: string): Promise<Buffer>;
  delete(key: string): Promise<void>;
  /** Deletes objects older than `olderThan`; returns how many were removed. */
  prune(olderThan: Date): Promise<number>;
}
