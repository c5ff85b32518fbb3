/** Leadership among processes that share a store: one of them leads (schedules, sweeps) at a time. */
export interface LeaderLease {
  isLeader(): boolean;
  /** Settles after the first attempt: true when this process leads from the start. */
  firstAttempt: Promise<boolean>;
  /** Gives the lease up (the lock goes with the connection) and stops asking for it. */
  stop(): Promise<void>;
}
