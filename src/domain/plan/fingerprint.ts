/**
 * A stable identity for "the same change set": scheduled runs that see the same drift again must
 * recognise it. Only semantic content counts (addresses, actions, attribute paths, masked values);
 * terraform version, provider registry host, timestamps, run ids and key order do not. Masked values
 * hide the secret itself, so a rotated secret keeps the fingerprint; hashing secrets in would let anyone
 * holding a fingerprint test guesses against it.
 *
 * Serialised in chunks of plain JSON: a canonical (key-sorting) serialiser over a 10,000-resource plan
 * cost more than the rest of the analysis together.
 */
import { createHash, type Hash } from 'node:crypto';
import type { OutputChange, ResourceChange } from './model.js';

export interface ChangeSet {
  changes: readonly ResourceChange[];
  drift: readonly ResourceChange[];
  outputs: readonly OutputChange[];
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byAddress(a: ResourceChange, b: ResourceChange): number {
  return compareText(a.address, b.address) || compareText(a.action, b.action);
}

/** Resources per JSON.stringify call: one call per resource costs more than the serialising itself. */
const CHUNK = 1000;

/**
 * Each resource as a JSON array of its semantic parts. Attribute values serialise the same whatever
 * the plan's key order: DiffValues are built with a fixed key order and object values with sorted keys
 * (see maskSide), and the diff emits attributes in a fixed order (sorted keys, list indexes).
 */
function hashResources(hash: Hash, section: string, list: readonly ResourceChange[]): void {
  hash.update(`#${section}\n`);
  const sorted = [...list].sort(byAddress);
  for (let i = 0; i < sorted.length; i += CHUNK) {
    const chunk = sorted
      .slice(i, i + CHUNK)
      .map((c) => [
        c.address,
        c.action,
        c.replaceOrder ?? null,
        c.previousAddress ?? null,
        c.importing === true,
        [...c.replacePaths].sort(),
        c.attributes.map((a) => [a.path, a.before, a.after, a.forcesReplacement]),
      ]);
    hash.update(JSON.stringify(chunk));
  }
}

export function fingerprintChanges(set: ChangeSet): string {
  const hash = createHash('sha256');
  hashResources(hash, 'changes', set.changes);
  hashResources(hash, 'drift', set.drift);
  const outputs = [...set.outputs].sort((a, b) => compareText(a.name, b.name));
  hash.update(`#outputs\n${JSON.stringify(outputs)}`);
  return hash.digest('hex');
}
