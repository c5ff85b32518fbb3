/** A job the control plane handed this worker, with the lease that is the only key to its results. */
export interface ClaimedJob {
  job: { id: string; kind: string; stack: string; request: unknown; attempts: number };
  lease: string;
  leaseSeconds: number;
}

/** What a worker on the agent API may ask of its control plane: its own pool's jobs, nothing else. */
export interface ControlPlane {
  /** `signal`: a stop asked while the control plane is slow to answer. */
  whoami(signal?: AbortSignal): Promise<{ pool: string; tokenId: string; protocol: number }>;
  /** The pool's next job, waiting up to `waitSeconds`; undefined when none came. */
  claim(waitSeconds: number, signal?: AbortSignal): Promise<ClaimedJob | undefined>;
  /** false: the lease no longer holds the job (stop working on it). */
  extend(jobId: string, lease: string): Promise<boolean>;
  /** A file the job brings, checked against the sha256 the control plane sent with it. */
  file(jobId: string, lease: string, name: string): Promise<{ body: Buffer; sha256: string }>;
  upload(jobId: string, lease: string, name: string, body: Buffer | string): Promise<void>;
  /** false: the control plane did not take the result (the lease had moved on). */
  result(jobId: string, lease: string, result: unknown): Promise<boolean>;
  /** This worker lives (or, `leaving`, stops): what `/drift status` and `driftgate workers` count. */
  heartbeat(beat: WorkerHeartbeat): Promise<void>;
}

export interface WorkerHeartbeat {
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  running: number;
  startedAt: number;
  leaving?: boolean;
}
