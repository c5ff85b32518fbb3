// The groups of queries that make up the Postgres store, by the names shared/query-groups.ts lists.
export { lockQueries } from './lock-queries.js';
export { outboxQueries } from './outbox-queries.js';
export { pendingChangeQueries } from './pending-change-queries.js';
export { recordQueries } from './record-queries.js';
export { remediationQueries } from './remediation-queries.js';
export { resourceIndexQueries } from './resource-index-queries.js';
export { runNoteQueries } from './run-note-queries.js';
export { runQueries } from './run-queries.js';
export { slackQueries } from './slack-queries.js';
export { stackQueries } from './stack-queries.js';
export { unmatchedChangeQueries } from './unmatched-change-queries.js';
