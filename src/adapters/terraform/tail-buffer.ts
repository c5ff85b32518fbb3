/**
 * Keeps the last `limit` bytes of a stream. Chunks are held as they come and the head is dropped
 * chunk-wise, so a long terraform log costs O(limit) memory and no copying until `text()`.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
      this.dropped = true;
    }
  }

  /** True when bytes were dropped from the head. */
  get truncated(): boolean {
    return this.dropped || this.size > this.limit;
  }

  text(): string {
    let buf = Buffer.concat(this.chunks, this.size);
    if (buf.length > this.limit) buf = buf.subarray(buf.length - this.limit);
    // The cut may land inside a multi-byte character: skip its continuation bytes.
    let start = 0;
    if (this.truncated) while (start < buf.length && start < 4 && (buf[start]! & 0xc0) === 0x80) start++;
    return buf.subarray(start).toString('utf8');
  }
}

/** The last `lines` lines of a text, for error messages. */
export function lastLines(text: string, lines: number): string {
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}
