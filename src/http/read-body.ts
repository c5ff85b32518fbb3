import type { IncomingMessage } from 'node:http';

/**
 * The request body as UTF-8 text, or `too_large` as soon as it passes `limitBytes` (by its Content-Length
 * or by what arrived): the rest is never buffered.
 */
export async function readBody(
  req: IncomingMessage,
  limitBytes: number,
): Promise<{ ok: true; text: string } | { ok: false; reason: 'too_large' }> {
  const read = await readBytes(req, limitBytes);
  return read.ok ? { ok: true, text: read.body.toString('utf8') } : read;
}

/** The request body as bytes, or `too_large` as soon as it passes `limitBytes`. */
export function readBytes(
  req: IncomingMessage,
  limitBytes: number,
): Promise<{ ok: true; body: Buffer } | { ok: false; reason: 'too_large' }> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.resolve({ ok: false, reason: 'too_large' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        req.off('data', onData);
        req.resume();
        resolve({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', () => resolve({ ok: true, body: Buffer.concat(chunks) }));
  });
}
