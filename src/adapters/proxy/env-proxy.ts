import { EnvHttpProxyAgent, setGlobalDispatcher } from 'undici';
import { type Env, readEnvironment } from '../../config/environment.js';

/** The proxy settings of the environment, as curl and most tools read them (lowercase first). */
export interface ProxySettings {
  httpsProxy?: string;
  httpProxy?: string;
  noProxy?: string;
}

export function proxySettingsFrom(env: Env): ProxySettings | undefined {
  const {
    HTTPS_PROXY: httpsProxy,
    HTTP_PROXY: httpProxy,
    NO_PROXY: noProxy,
  } = readEnvironment(env, ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY']).values;
  if (!httpsProxy && !httpProxy) return undefined;
  return {
    ...(httpsProxy ? { httpsProxy } : {}),
    ...(httpProxy ? { httpProxy } : {}),
    ...(noProxy ? { noProxy } : {}),
  };
}

/**
 * Node's fetch reads no proxy variable: with HTTPS_PROXY (or HTTP_PROXY) set, every fetch of this process
 * (Slack, GitHub, PagerDuty, and the AWS clients, given a fetch handler by awsProxyHandler) goes through
 * it, tunnelled with CONNECT, except to the hosts NO_PROXY names. terraform and git read the same variables themselves.
 */
export function useProxyFromEnv(env: Env): ProxySettings | undefined {
  const settings = proxySettingsFrom(env);
  if (!settings) return undefined;
  // Empty strings rather than undefined: the agent would read process.env for a missing one.
  setGlobalDispatcher(
    new EnvHttpProxyAgent({
      httpProxy: settings.httpProxy ?? '',
      httpsProxy: settings.httpsProxy ?? settings.httpProxy ?? '',
      noProxy: settings.noProxy ?? '',
    }),
  );
  return settings;
}
