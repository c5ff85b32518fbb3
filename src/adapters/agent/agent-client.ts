import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DriftgateError, ExternalServiceError } from '../../domain/errors.js';
import {
  AGENT_API_PREFIX,
  AGENT_PROTOCOL_HEADER,
  AGENT_PROTOCOL_VERSION,
  LEASE_HEADER,
} from '../../domain/agent/protocol.js';
import type { ClaimedJob, ControlPlane } from '../../ports/control-plane.js';

/** The control plane refused this worker's token or protocol: retrying cannot help, a person must act. */
export class AgentRefusedError extends DriftgateError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

const Whoami = z.object({ pool: z.string(), tokenId: z.string(), protocol: z.number() });
const Claim = z.object({
  job: z.object({
    id: z.string(),
    kind: z.string(),
    stack: z.string(),
    request: z.unknown(),
    attempts: z.number(),
  }),
  lease: z.string().min(32),
  leaseSeconds: z.number().positive(),
});

/**
 * The worker's side of the agent API: plain HTTPS (or HTTP on a private network) with its pool token on
 * every request. `NODE_EXTRA_CA_CERTS` makes a private CA's certificate trusted.
 */
export function createAgentClient(options: {
  url: string;
  token: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}): ControlPlane {
  const base = `${options.url.replace(/\/+$/, '')}${AGENT_API_PREFIX}`;
  const doFetch = options.fetch ?? fetch;
  const call = async (
    method: string,
    path: string,
    init: { body?: Buffer | string; lease?: string; json?: boolean; signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<Response> => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      [AGENT_PROTOCOL_HEADER]: String(AGENT_PROTOCOL_VERSION),
    };
    if (init.lease) headers[LEASE_HEADER] = init.lease;
    if (init.json) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(init.timeoutMs ?? options.timeoutMs ?? 60_000);
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
      });
    } catch (err) {
      throw new ExternalServiceError(
        'driftgate control plane',
        `${method} ${path} failed: ${(err as Error).message}`,
        true,
        {
          cause: err,
        },
      );
    }
    if (res.status === 401 || res.status === 426) {
      const body = (await res.json().catch(() => ({}))) as { error?: string };
      throw new AgentRefusedError(
        `the control plane at ${options.url} refused this worker: ${body.error ?? res.status}`,
      );
    }
    if (res.status >= 500)
      throw new ExternalServiceError('driftgate control plane', `${method} ${path} answered ${res.status}`, true);
    return res;
  };
  return {
    async whoami(signal) {
      const res = await call('GET', '/whoami', signal ? { signal } : {});
      return Whoami.parse(await res.json());
    },
    async claim(waitSeconds, signal) {
      const res = await call('POST', '/jobs/claim', {
        body: JSON.stringify({ waitSeconds }),
        json: true,
        ...(signal ? { signal } : {}),
        timeoutMs: (waitSeconds + 30) * 1000,
      });
      if (res.status === 204) return undefined;
      if (res.status !== 200)
        throw new ExternalServiceError('driftgate control plane', `claim answered ${res.status}`, true);
      return Claim.parse(await res.json()) as ClaimedJob;
    },
    async extend(jobId, lease) {
      const res = await call('POST', `/jobs/${jobId}/lease`, { lease });
      await res.body?.cancel();
      return res.status === 200;
    },
    async file(jobId, lease, name) {
      const res = await call('GET', `/jobs/${jobId}/files/${name}`, { lease, timeoutMs: 10 * 60_000 });
      if (res.status !== 200)
        throw new DriftgateError('EXTERNAL_SERVICE', `job ${jobId}'s ${name} could not be read (${res.status})`);
      const body = Buffer.from(await res.arrayBuffer());
      const sha256 = createHash('sha256').update(body).digest('hex');
      if (sha256 !== res.headers.get('x-driftgate-sha256'))
        throw new DriftgateError('ARTIFACT_INTEGRITY', `job ${jobId}'s ${name} did not arrive whole (sha256 differs)`);
      return { body, sha256 };
    },
    async upload(jobId, lease, name, body) {
      const res = await call('PUT', `/jobs/${jobId}/files/${name}`, { lease, body, timeoutMs: 10 * 60_000 });
      if (res.status !== 200) {
        const text = await res.text();
        throw new DriftgateError(
          'EXTERNAL_SERVICE',
          `uploading job ${jobId}'s ${name} was refused (${res.status}): ${text}`,
        );
      }
      await res.body?.cancel();
    },
    async heartbeat(beat) {
      const res = await call('POST', '/heartbeat', { body: JSON.stringify(beat), json: true });
      await res.body?.cancel();
    },
    async result(jobId, lease, result) {
      const res = await call('POST', `/jobs/${jobId}/result`, { lease, body: JSON.stringify(result), json: true });
      await res.body?.cancel();
      return res.status === 200;
    },
  };
}
