import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { TerraformError } from '../../domain/errors.js';
import { CONTAINER_RUN_PATH, ContainerRunLine, type ContainerRunRequest } from './container-protocol.js';
import type { ProcessRequest, ProcessResult, ProcessRunner } from './process.js';
import { TailBuffer } from './tail-buffer.js';

/** Why the terraform container did not run a command: unreachable, or it refused the request. */
function containerError(socket: string, why: string): TerraformError {
  return new TerraformError('(terraform container)', undefined, `the terraform container at ${socket} ${why}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * terraform run by the container beside this worker (`driftgate terraform-runner`), not spawned here: the
 * module it runs shares neither this process's uid, nor its environment, nor its files. Aborting the
 * request (a cancel) closes the connection, on which the container ends the process tree; the timeout and
 * kill grace travel with the request and are applied there.
 */
export function createContainerRunner(socket: string): ProcessRunner {
  return (req: ProcessRequest) =>
    new Promise<ProcessResult>((resolve, reject) => {
      const body: ContainerRunRequest = {
        args: req.args,
        cwd: req.cwd,
        env: req.env,
        timeoutMs: req.timeoutMs,
        killGraceMs: req.killGraceMs,
      };
      const stdout = new TailBuffer(req.stdoutLimit);
      const stderr = new TailBuffer(req.stderrLimit);
      const started = performance.now();
      const call = request({ socketPath: socket, path: CONTAINER_RUN_PATH, method: 'POST' }, (res) => {
        if (res.statusCode !== 200) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => reject(containerError(socket, `refused the command: ${text.slice(0, 2_000)}`)));
          return;
        }
        let ended = false;
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        lines.on('line', (text) => {
          const parsed = ContainerRunLine.safeParse(parseJson(text));
          if (!parsed.success) return;
          const line = parsed.data;
          if ('stream' in line) {
            const chunk = Buffer.from(line.data, 'base64');
            (line.stream === 'stdout' ? stdout : stderr).push(chunk);
            req.onOutput?.(line.stream, chunk);
            return;
          }
          ended = true;
          resolve({
            stdout: stdout.text(),
            stderr: stderr.text(),
            exitCode: line.end.exitCode,
            durationMs: line.end.durationMs,
            truncated: stdout.truncated || stderr.truncated,
            timedOut: line.end.timedOut,
            canceled: line.end.canceled || Boolean(req.signal?.aborted),
            ...(line.end.spawnError ? { spawnError: line.end.spawnError } : {}),
          });
        });
        // After an abort the promise is already settled: this rejection is then a no-op.
        lines.on('close', () => {
          if (!ended) reject(containerError(socket, 'closed the connection before the command ended'));
        });
      });
      call.on('error', (err: Error) => {
        reject(containerError(socket, `does not answer: ${err.message}`));
      });
      const abort = () => {
        call.destroy();
        resolve({
          stdout: stdout.text(),
          stderr: stderr.text(),
          exitCode: undefined,
          durationMs: Math.round(performance.now() - started),
          truncated: stdout.truncated || stderr.truncated,
          timedOut: false,
          canceled: true,
        });
      };
      if (req.signal?.aborted) return abort();
      req.signal?.addEventListener('abort', abort, { once: true });
      call.end(JSON.stringify(body));
    });
}
