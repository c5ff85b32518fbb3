import type { DriftgateConfig } from '../../config/schema.js';
import type { ArtifactStore } from '../../ports/artifacts.js';
import { type CheckResult, fail, ok, reason } from './check-result.js';

/** Writes, reads back (checking its sha256) and deletes a probe object, as a run does with a saved plan. */
export async function checkArtifactStore(
  store: ArtifactStore,
  artifacts: DriftgateConfig['artifacts'],
): Promise<CheckResult> {
  // Always the same key and body: two doctors at once write the same bytes, and nothing is left behind.
  const key = 'doctor/probe.txt';
  const body = 'driftgate doctor probe\n';
  const fix =
    artifacts.type === 's3'
      ? `check artifacts.bucket, region and endpoint, and that this process's AWS credentials may PutObject, GetObject and DeleteObject in s3://${artifacts.bucket}/${artifacts.prefix}`
      : 'make that dir writable by this user, or set artifacts.dir';
  let step = 'writing';
  try {
    const stored = await store.put(key, body);
    step = 'reading back';
    await store.get(key, stored.sha256);
    step = 'deleting';
    await store.delete(key);
  } catch (err) {
    return fail('artifacts', `${step} the probe ${key} failed: ${reason(err)}`, fix);
  }
  return ok('artifacts', `${store.location}: the probe ${key} written, read back and deleted`);
}
