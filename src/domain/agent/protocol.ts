/**
 * The agent API's protocol version. A worker sends it on every request (`driftgate-agent-protocol`); the
 * control plane refuses another version with both named, so a worker older or newer than its control
 * plane stops at once with a message instead of misreading jobs.
 */
export const AGENT_PROTOCOL_VERSION = 1;
export const AGENT_PROTOCOL_HEADER = 'driftgate-agent-protocol';
/** Every path of the agent API starts here. */
export const AGENT_API_PREFIX = `/agent/v${AGENT_PROTOCOL_VERSION}`;
/** The header a worker sends a job's lease in; the lease alone is the key to that job's results. */
export const LEASE_HEADER = 'driftgate-lease';
