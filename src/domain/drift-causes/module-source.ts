import { maskUrlCredentials } from '../url-credentials.js';

/** Query parameters of a module source that say where, not who: kept; any other's value is masked. */
const PLAIN_SOURCE_PARAMS = new Set(['ref', 'depth', 'archive', 'checksum', 'region', 'version', 'aws_profile']);

/**
 * A module source as causes show it (Slack, PagerDuty, policies, the stored evidence): the credentials a
 * source may carry (`https://user:token@…`, `?sshkey=…`, `?aws_access_key_secret=…`) masked. A token
 * rotated is no module change either.
 */
export function sourceWithoutCredentials(source: string): string {
  return maskUrlCredentials(source).replace(/([?&])([^=&#]+)=([^&#]*)/g, (all, sep: string, name: string) =>
    PLAIN_SOURCE_PARAMS.has(name.toLowerCase()) ? all : `${sep}${name}=***`,
  );
}
