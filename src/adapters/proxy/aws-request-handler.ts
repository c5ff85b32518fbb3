import { FetchHttpHandler } from '@smithy/fetch-http-handler';
import { proxySettingsFrom } from './env-proxy.js';

/**
 * The AWS SDK's fetch handler, for a process behind a proxy: the SDK's default Node handler reads no proxy
 * variable, fetch goes through the dispatcher useProxyFromEnv installed. Node's own fetch hands the
 * SDK's explicit Content-Length to that (newer) dispatcher in a form it refuses ("invalid content-length
 * header"), so it is left to fetch, which sets the same value from the body. It was signed with the
 * request and is sent unchanged.
 */
class ProxiedFetchHandler extends FetchHttpHandler {
  override handle(...[request, options]: Parameters<FetchHttpHandler['handle']>) {
    for (const name of Object.keys(request.headers))
      if (name.toLowerCase() === 'content-length') delete request.headers[name];
    return super.handle(request, options);
  }
}

/** An AWS client's `requestHandler` when HTTPS_PROXY (or HTTP_PROXY) is set; none otherwise. */
export function awsProxyHandler(
  env: Record<string, string | undefined> | undefined,
  options: ConstructorParameters<typeof FetchHttpHandler>[0] = {},
): { requestHandler: FetchHttpHandler } | Record<string, never> {
  return env && proxySettingsFrom(env) ? { requestHandler: new ProxiedFetchHandler(options) } : {};
}
