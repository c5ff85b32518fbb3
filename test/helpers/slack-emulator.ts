import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageProblems } from '../../src/slack/limits.js';
import { METHODS } from './slack-emulator/methods.js';
import { startSocketModeLink, type SocketModeLink } from './slack-emulator/socket-mode.js';
import { parseArgs, readRaw, uploadBytes } from './slack-emulator/read-body.js';
import {
  createState,
  type EmulatedEphemeral,
  type EmulatedFile,
  type EmulatedMessage,
  type EmulatedUser,
  type EmulatedUsergroup,
  type EmulatedView,
} from './slack-emulator/state.js';

export type { EmulatedEphemeral, EmulatedFile, EmulatedMessage, EmulatedUser, EmulatedUsergroup, EmulatedView };

/** One request as the emulator saw it. `args` never holds the token. */
export interface RecordedCall {
  method: string;
  args: Record<string, unknown>;
  at: Date;
  status: number;
  ok: boolean;
  error?: string;
}

export interface SlackEmulatorOptions {
  token?: string;
  /** When given, only these channels exist: others answer `channel_not_found`. */
  channels?: string[];
  users?: EmulatedUser[];
  usergroups?: EmulatedUsergroup[];
  /** Channel id -> its members (conversations.members); a channel not listed has none. */
  members?: Record<string, string[]>;
  /** Serves Socket Mode: `apps.connections.open` with this app token opens `socket`. */
  appToken?: string;
}

export interface SlackEmulator {
  /** Base URL of the Web API, for SLACK_API_URL / WebClient's slackApiUrl: `http://127.0.0.1:<port>/api/`. */
  readonly apiUrl: string;
  readonly token: string;
  /** Slack's side of Socket Mode, when the emulator was started with an app token. */
  readonly socket?: SocketModeLink;
  /** Every request so far, in arrival order; with `method`, only those. */
  calls(method?: string): RecordedCall[];
  /** Messages as they are now (chat.update applied), in posting order; with `channel`, only that channel's. */
  messages(channel?: string): EmulatedMessage[];
  message(channel: string, ts: string): EmulatedMessage | undefined;
  ephemerals(): EmulatedEphemeral[];
  /** A response_url for an interaction payload; what is POSTed to it lands in `responses()`. */
  responseUrl(id: string): string;
  /** Bodies POSTed to response URLs (ephemeral answers to commands and clicks), in arrival order. */
  responses(id?: string): { id: string; body: Record<string, unknown> }[];
  views(): EmulatedView[];
  files(): EmulatedFile[];
  seedUser(user: EmulatedUser): void;
  seedUsergroup(group: EmulatedUsergroup): void;
  /** Sets a channel's members. */
  seedMembers(channel: string, members: string[]): void;
  /** The next `n` requests answer with this HTTP status (body `{ ok: false, error: 'internal_error' }`). */
  failNext(n: number, options: { status: 500 | 502 | 503 }): void;
  /** The next `n` requests answer HTTP 429 with `Retry-After: retryAfterSeconds`. */
  rateLimitNext(n: number, retryAfterSeconds: number): void;
  /** `refuse` (default) closes the port: connections are refused. `unavailable` answers 503 to everything. */
  down(mode?: 'refuse' | 'unavailable'): Promise<void>;
  /** Serves again, on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

type Scripted = { kind: 'status'; status: number } | { kind: 'ratelimit'; retryAfter: number };

/** A Slack Web API stand-in on a real loopback port; see test/slack/emulator.test.ts for what it does. */
export async function startSlackEmulator(options: SlackEmulatorOptions = {}): Promise<SlackEmulator> {
  const state = createState(options.token ?? 'xoxb-emulator-token', options.channels);
  for (const user of options.users ?? []) state.users.set(user.id, user);
  for (const group of options.usergroups ?? []) state.usergroups.set(group.id, group);
  for (const [channel, members] of Object.entries(options.members ?? {})) state.members.set(channel, members);
  const socket = options.appToken ? await startSocketModeLink() : undefined;
  const recorded: RecordedCall[] = [];
  const responses: { id: string; body: Record<string, unknown> }[] = [];
  const script: Scripted[] = [];
  let unavailable = false;

  function send(
    res: ServerResponse,
    status: number,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  }

  function authError(req: IncomingMessage, formToken: string | undefined): string | undefined {
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : formToken;
    if (!token) return 'not_authed';
    return token === state.token ? undefined : 'invalid_auth';
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', state.origin);
    const raw = await readRaw(req);
    const response = url.pathname.match(/^\/response\/([^/]+)$/);
    if (response) return respondTo(res, response[1]!, raw);
    const upload = url.pathname.match(/^\/upload\/([^/]+)$/);
    const method = upload ? 'upload' : url.pathname.replace(/^\/api\//, '');
    let parsed: ReturnType<typeof parseArgs> = { args: {} };
    if (!upload) {
      try {
        parsed = parseArgs(req.headers['content-type'], raw);
      } catch {
        return reply(res, method, {}, 200, { ok: false, error: 'invalid_json' });
      }
    }
    const args = upload ? { file_id: upload[1], bytes: raw.length } : parsed.args;

    if (unavailable) return reply(res, method, args, 503, { ok: false, error: 'service_unavailable' });
    const scripted = script.shift();
    if (scripted?.kind === 'status')
      return reply(res, method, args, scripted.status, { ok: false, error: 'internal_error' });
    if (scripted?.kind === 'ratelimit') {
      return reply(
        res,
        method,
        args,
        429,
        { ok: false, error: 'ratelimited' },
        { 'retry-after': String(scripted.retryAfter) },
      );
    }

    if (upload) {
      const file = state.files.get(upload[1]!);
      if (!file) return reply(res, method, args, 404, { ok: false, error: 'file_not_found' });
      file.bytes = await uploadBytes(req.headers['content-type'], raw);
      return reply(res, method, args, 200, { ok: true });
    }
    if (method === 'apps.connections.open') {
      const bearer = req.headers.authorization?.replace(/^Bearer /, '') ?? parsed.formToken;
      if (!socket || bearer !== options.appToken)
        return reply(res, method, args, 200, { ok: false, error: 'invalid_auth' });
      return reply(res, method, args, 200, { ok: true, url: socket.url });
    }
    const auth = authError(req, parsed.formToken);
    if (auth) return reply(res, method, args, 200, { ok: false, error: auth });
    const handler = METHODS[method];
    if (!handler) return reply(res, method, args, 404, { ok: false, error: 'unknown_method' });
    return reply(res, method, args, 200, handler(state, args));
  }

  /** A response_url takes JSON; Slack refuses a message that breaks Block Kit limits there too. */
  function respondTo(res: ServerResponse, id: string, raw: Buffer) {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return reply(res, 'response_url', {}, 400, { ok: false, error: 'invalid_json' });
    }
    if (unavailable) return reply(res, 'response_url', body, 503, { ok: false, error: 'service_unavailable' });
    const problems = messageProblems(body);
    if (problems.length) return reply(res, 'response_url', body, 200, { ok: false, error: 'invalid_blocks', problems });
    responses.push({ id, body });
    return reply(res, 'response_url', body, 200, { ok: true });
  }

  function reply(
    res: ServerResponse,
    method: string,
    args: Record<string, unknown>,
    status: number,
    body: Record<string, unknown>,
    headers?: Record<string, string>,
  ) {
    const error = typeof body.error === 'string' ? body.error : undefined;
    recorded.push({ method, args, at: new Date(), status, ok: body.ok === true, ...(error ? { error } : {}) });
    send(res, status, body, headers);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { ok: false, error: 'emulator_bug', detail: String(err) });
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });

  await listen(0);
  const { port } = server.address() as AddressInfo;
  state.origin = `http://127.0.0.1:${port}`;

  return {
    apiUrl: `${state.origin}/api/`,
    token: state.token,
    ...(socket ? { socket } : {}),
    calls: (method) => (method === undefined ? [...recorded] : recorded.filter((c) => c.method === method)),
    messages: (channel) =>
      channel === undefined ? [...state.messages] : state.messages.filter((m) => m.channel === channel),
    message: (channel, ts) => state.messages.find((m) => m.channel === channel && m.ts === ts),
    ephemerals: () => [...state.ephemerals],
    responseUrl: (id) => `${state.origin}/response/${encodeURIComponent(id)}`,
    responses: (id) => responses.filter((r) => id === undefined || r.id === id),
    views: () => [...state.views],
    files: () => [...state.files.values()],
    seedUser: (user) => void state.users.set(user.id, user),
    seedUsergroup: (group) => void state.usergroups.set(group.id, group),
    seedMembers: (channel, members) => void state.members.set(channel, members),
    failNext(n, { status }) {
      for (let i = 0; i < n; i++) script.push({ kind: 'status', status });
    },
    rateLimitNext(n, retryAfter) {
      for (let i = 0; i < n; i++) script.push({ kind: 'ratelimit', retryAfter });
    },
    async down(mode = 'refuse') {
      if (mode === 'unavailable') unavailable = true;
      else await stop();
    },
    async up() {
      unavailable = false;
      if (!server.listening) await listen(port);
    },
    async close() {
      await socket?.close();
      await stop();
    },
  };
}
