import type { IncomingMessage } from 'node:http';

export async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A Web API request's arguments, as Slack reads them: a JSON body, or a form body whose structured
 * fields (`blocks`, `view`, `files`, …) arrive as JSON text. The `token` field is dropped; it is auth, not an argument.
 */
export function parseArgs(
  contentType: string | undefined,
  raw: Buffer,
): { args: Record<string, unknown>; formToken?: string } {
  const text = raw.toString('utf8');
  if ((contentType ?? '').includes('application/json')) {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('JSON body is not an object');
    return { args: parsed as Record<string, unknown> };
  }
  const args: Record<string, unknown> = {};
  let formToken: string | undefined;
  for (const [name, value] of new URLSearchParams(text)) {
    if (name === 'token') formToken = value;
    else args[name] = maybeJson(value);
  }
  return { args, formToken };
}

function maybeJson(value: string): unknown {
  if (!/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** The bytes of an upload: the raw body, or the first file part of a multipart form. */
export async function uploadBytes(contentType: string | undefined, raw: Buffer): Promise<Buffer> {
  if (!(contentType ?? '').includes('multipart/form-data')) return raw;
  const form = await new Response(raw, { headers: { 'content-type': contentType! } }).formData();
  for (const value of form.values()) {
    if (typeof value !== 'string') return Buffer.from(await value.arrayBuffer());
  }
  const first = form.values().next().value;
  return Buffer.from(typeof first === 'string' ? first : '');
}
