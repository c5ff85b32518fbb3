import { createHash } from 'node:crypto';
import { ArtifactIntegrityError, ArtifactStoreError } from '../../domain/errors.js';

/** A key that would escape the store, or collide with its own bookkeeping files. */
export class InvalidArtifactKeyError extends ArtifactStoreError {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(
      `invalid artifact key ${JSON.stringify(key)}: ${reason} (keys are relative paths like runs/<runId>/plan.tfplan)`,
    );
  }
}

/**
 * Keys are relative `/`-separated paths. No `..`, no absolute paths, no empty or dot-first segments:
 * the local store keeps its temp and checksum files under dot names, where no key can reach them.
 */
export function checkArtifactKey(key: string): string {
  if (key.length === 0) throw new InvalidArtifactKeyError(key, 'it is empty');
  if (key.length > 512) throw new InvalidArtifactKeyError(key, 'it is longer than 512 characters');
  if (key.startsWith('/') || /^[A-Za-z]:/.test(key)) throw new InvalidArtifactKeyError(key, 'it is absolute');
  if (/[\\\0]/.test(key)) throw new InvalidArtifactKeyError(key, 'it contains a backslash or NUL');
  for (const segment of key.split('/')) {
    if (segment === '..') throw new InvalidArtifactKeyError(key, 'it contains ".."');
    if (segment === '') throw new InvalidArtifactKeyError(key, 'it has an empty path segment');
    if (segment.startsWith('.')) throw new InvalidArtifactKeyError(key, `segment "${segment}" starts with "."`);
  }
  return key;
}

export function sha256Hex(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

export function toBuffer(body: Buffer | string): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** Returns `body` when its sha256 matches `expected`, else throws ArtifactIntegrityError. */
export function verifySha256(key: string, body: Buffer, expected: string): Buffer {
  const actual = sha256Hex(body);
  if (actual !== expected.toLowerCase()) throw new ArtifactIntegrityError(key, expected, actual);
  return body;
}
