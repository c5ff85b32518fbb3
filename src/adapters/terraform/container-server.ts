import { chmod, lstat, realpath, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isAbsolute, relative } from 'node:path';
import { CONTAINER_RUN_PATH, ContainerRunRequest, type ContainerRunLine } from './container-protocol.js';
import { runProcess } from './process.js';
import type { Logger } from '../../ports/logger.js';

export interface ContainerServerOptions {
  socket: string;
  /** The shared dir: every command runs inside it (links resolved). */
  dir: string;
  /** The one program it runs: the absolute path of terraform or tofu. */
  binary: string;
  /** Whether a request's variable is one of driftgate's secrets, never passed on to terraform. */
  forbidden: (name: string, value: string) => boolean;
  logger: Pick<Logger, 'info' | 'warn'>;
}

/** A request body larger than this is refused: a command's argv and environment, nothing more. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const inside = (path: string, parent: string) => {
  const rel = relative(parent, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(message);
}

/** The request, checked: its fields, and a cwd inside the shared dir once its links are resolved. */
async function parseRequest(
  body: string | undefined,
  realDir: string,
): Promise<{ ok: true; request: ContainerRunRequest; cwd: string } | { ok: false; message: string }> {
  if (body === undefined) return { ok: false, message: `request larger than ${MAX_BODY_BYTES} bytes` };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, message: 'request is not JSON' };
  }
  const parsed = ContainerRunRequest.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      message: parsed.error.issues.map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`).join('; '),
    };
  const cwd = await realpath(parsed.data.cwd).catch(() => undefined);
  if (!cwd) return { ok: false, message: `cwd: ${parsed.data.cwd} does not exist` };
  if (!inside(cwd, realDir)) return { ok: false, message: `cwd: ${parsed.data.cwd} is outside ${realDir}` };
  return { ok: true, request: parsed.data, cwd };
}

/**
 * The terraform container's side of the socket: one process per request, always `binary`, in a cwd inside
 * the shared dir, with the request's environment less driftgate's secrets. Output is streamed back as it
 * comes (NDJSON), then the exit; a connection closed before the end (the worker's cancel) ends the process
 * tree as a timeout does: SIGINT, then SIGKILL after the request's kill grace.
 */
export async function serveTerraformContainer(options: ContainerServerOptions): Promise<{ close(): Promise<void> }> {
  const realDir = await realpath(options.dir);
  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      options.logger.warn({ err: String(err) }, 'terraform container request failed');
      if (!res.headersSent) refuse(res, 500, String(err));
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== CONTAINER_RUN_PATH) return refuse(res, 404, 'POST /run only');
    const checked = await parseRequest(await readBody(req), realDir);
    if (!checked.ok) {
      options.logger.warn({ reason: checked.message }, 'terraform container refused a request');
      return refuse(res, 400, checked.message);
    }
    const { request, cwd } = checked;
    const dropped = Object.keys(request.env).filter((name) => options.forbidden(name, request.env[name] ?? ''));
    const env = Object.fromEntries(Object.entries(request.env).filter(([name]) => !dropped.includes(name)));
    if (dropped.length) options.logger.warn({ dropped }, "dropped driftgate's secrets from a request's environment");
    const cancel = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) cancel.abort();
    });
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const send = (line: ContainerRunLine) => res.write(`${JSON.stringify(line)}\n`);
    const result = await runProcess({
      file: options.binary,
      args: request.args,
      cwd,
      env,
      timeoutMs: request.timeoutMs,
      killGraceMs: request.killGraceMs,
      signal: cancel.signal,
      // The worker keeps the output: here only what is streamed.
      stdoutLimit: 1,
      stderrLimit: 1,
      onOutput: (stream, chunk) => send({ stream, data: chunk.toString('base64') }),
    });
    options.logger.info(
      { args: request.args, cwd, exitCode: result.exitCode, durationMs: result.durationMs, canceled: result.canceled },
      'terraform command',
    );
    const { exitCode, durationMs, timedOut, canceled, spawnError } = result;
    send({
      end: {
        ...(exitCode === undefined ? {} : { exitCode }),
        durationMs,
        timedOut,
        canceled,
        ...(spawnError ? { spawnError } : {}),
      },
    });
    res.end();
  }

  // A socket left by an earlier run of this container would make listen fail.
  if ((await lstat(options.socket).catch(() => undefined))?.isSocket()) await unlink(options.socket);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // The worker reaches it through the pod's shared group (fsGroup); nobody else.
  await chmod(options.socket, 0o660);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
