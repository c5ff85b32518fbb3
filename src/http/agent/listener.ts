import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { errorMessage } from '../../domain/errors.js';
import type { AgentIdentity, Authenticated } from '../../services/pools/pool-tokens.js';
import { replyJson as reply } from '../reply.js';
import { AGENT_API_PREFIX, AGENT_PROTOCOL_HEADER, AGENT_PROTOCOL_VERSION } from '../../domain/agent/protocol.js';
import type { Logger } from '../../ports/logger.js';

/** What a route answers: a status and a JSON body. */
export interface AgentReply {
  status: number;
  body: object;
  headers?: Record<string, string>;
  /** Bytes to send instead of `body` (a file the op brings its worker). */
  raw?: Buffer;
}

/** One endpoint of the agent API, reached only with a live pool token; `path` follows the version prefix. */
export interface AgentRoute {
  method: 'GET' | 'POST' | 'PUT';
  path: RegExp;
  handle(request: { agent: AgentIdentity; req: IncomingMessage; params: string[] }): Promise<AgentReply>;
}

export interface AgentListenerOptions {
  authenticate(presented: string): Promise<Authenticated>;
  routes: readonly AgentRoute[];
  logger: Logger;
  /** Whether the control plane takes agent requests now (false while it starts or stops): 503 when not. */
  available?: () => boolean;
}

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * The agent API: what a worker may ask of the control plane, with its pool token and nothing else. The
 * token is checked before anything is read or routed, on every request; a request without a live token
 * learns only why it was refused (a revoked token is named, so its worker can say which to replace).
 */
export function createAgentListener(options: AgentListenerOptions): RequestListener {
  const { logger } = options;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://agent');
    if (!url.pathname.startsWith(`${AGENT_API_PREFIX}/`))
      return reply(res, 404, { error: `not an agent API path (they start with ${AGENT_API_PREFIX}/)` });
    if (options.available && !options.available())
      return reply(res, 503, { error: 'the control plane is not taking agent requests now' }, { 'retry-after': '5' });
    const protocol = req.headers[AGENT_PROTOCOL_HEADER];
    if (protocol !== String(AGENT_PROTOCOL_VERSION))
      return reply(res, 426, {
        error: `agent protocol ${typeof protocol === 'string' ? protocol : '(none)'} is not this control plane's (${AGENT_PROTOCOL_VERSION}): run the same driftgate version on workers and control plane`,
        protocol: AGENT_PROTOCOL_VERSION,
      });
    const presented = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (!presented)
      return reply(res, 401, { error: 'no pool token: send Authorization: Bearer <DRIFTGATE_POOL_TOKEN>' });
    const auth = await options.authenticate(presented);
    if (!auth.ok) {
      logger.warn(
        { path: url.pathname, reason: auth.reason, ...(auth.tokenId ? { tokenId: auth.tokenId } : {}) },
        'agent request refused',
      );
      return reply(res, 401, {
        error:
          auth.reason === 'revoked'
            ? `pool token ${auth.tokenId} was revoked: give this worker a live one (driftgate pool token create)`
            : auth.reason === 'malformed'
              ? 'not a driftgate pool token (they start dgpt_)'
              : 'unknown pool token',
        reason: auth.reason,
        ...(auth.tokenId ? { tokenId: auth.tokenId } : {}),
      });
    }
    const rest = url.pathname.slice(AGENT_API_PREFIX.length);
    const matches = options.routes.filter((r) => r.path.test(rest));
    if (matches.length === 0) return reply(res, 404, { error: `no agent API route ${rest}` });
    const route = matches.find((r) => r.method === req.method);
    if (!route)
      return reply(
        res,
        405,
        { error: `${req.method} not allowed on ${rest}` },
        { allow: matches.map((r) => r.method).join(', ') },
      );
    const params = route.path.exec(rest)!.slice(1);
    const answer = await route.handle({ agent: auth.agent, req, params });
    if (answer.raw) {
      res.writeHead(answer.status, { 'content-type': 'application/octet-stream', ...answer.headers });
      return res.end(answer.raw);
    }
    return reply(res, answer.status, answer.body, answer.headers);
  };
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ path: req.url, err: errorMessage(err) }, 'agent request failed');
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
      else res.end();
    });
  };
}

/** `GET /whoami`: the pool the token is of, so a worker starting up checks its token and protocol first. */
export const whoamiRoute: AgentRoute = {
  method: 'GET',
  path: /^\/whoami$/,
  handle: async ({ agent }) => ({
    status: 200,
    body: { pool: agent.pool, tokenId: agent.tokenId, protocol: AGENT_PROTOCOL_VERSION },
  }),
};
