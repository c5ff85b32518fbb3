import { ArtifactStoreError } from '../../domain/errors.js';

/** Errors that mean the endpoint could not be reached or did not answer in time. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
const NETWORK_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'NetworkingError']);

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $fault?: 'client' | 'server';
}

/** The S3 failure as an ArtifactStoreError naming the operation, the location and the cause (no credentials). */
export function s3StoreError(action: string, what: string, location: string, err: unknown): ArtifactStoreError {
  if (err instanceof ArtifactStoreError) return err;
  const e = (err ?? {}) as SdkError;
  const code = e.code ?? (err as { cause?: SdkError } | undefined)?.cause?.code;
  let cause: string;
  if ((code && NETWORK_CODES.has(code)) || (e.name && NETWORK_NAMES.has(e.name))) {
    cause = `endpoint unreachable (${code ?? e.name}); retry once S3 is reachable`;
  } else if (e.$metadata?.httpStatusCode) {
    cause =
      `S3 answered ${e.$metadata.httpStatusCode} ${e.name ?? ''}${e.message && e.message !== e.name ? `: ${e.message}` : ''}`.trim();
  } else {
    cause = e.message || e.name || String(err);
  }
  return new ArtifactStoreError(`cannot ${action} ${what} in ${location}: ${cause}`, { cause: err });
}
