import { environmentValue } from '../../config/environment.js';
import { awsProxyHandler } from '../proxy/aws-request-handler.js';

/** What driftgate's AWS clients are made from. */
export interface AwsClientOptions {
  region: string;
  /** Default: the service's AWS_ENDPOINT_URL_* variable in `env`, else AWS's own endpoint. */
  endpoint?: string;
  env?: Record<string, string | undefined>;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** The settings every AWS SDK client of driftgate's takes alike: region, endpoint, credentials, the proxy. */
export function awsClientConfig(
  options: AwsClientOptions,
  endpointVariable: 'AWS_ENDPOINT_URL_SQS' | 'AWS_ENDPOINT_URL_CLOUDTRAIL',
) {
  const endpoint = options.endpoint ?? (options.env && environmentValue(options.env, endpointVariable));
  return {
    region: options.region,
    ...(endpoint ? { endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...awsProxyHandler(options.env),
  };
}
