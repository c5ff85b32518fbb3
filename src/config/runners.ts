import type { ConfigIssue } from '../domain/errors.js';
import type { ConfigFile } from './schema.js';

/**
 * Workers run in other processes, on other machines: they share the store and the saved plans only
 * through Postgres and S3. A local SQLite file or artifact directory would leave each process its own.
 */
export function runnersIssues(file: ConfigFile): ConfigIssue[] {
  if (file.runners.type !== 'workers') return [];
  const issues: ConfigIssue[] = [];
  if (file.store.type !== 'postgres')
    issues.push({
      path: 'store.type',
      message: `runners: {type: workers} needs the shared store: store: {type: postgres, url: \${DATABASE_URL}}`,
    });
  if (file.artifacts.type !== 's3')
    issues.push({
      path: 'artifacts.type',
      message: 'runners: {type: workers} needs saved plans every process can read: artifacts: {type: s3, bucket: ...}',
    });
  return issues;
}
