import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArtifactKeyError } from '../../../src/adapters/artifacts/artifact-key.js';
import { createArtifactStore } from '../../../src/adapters/artifacts/create-artifact-store.js';
import { createLocalArtifactStore } from '../../../src/adapters/artifacts/local-artifact-store.js';
import { ArtifactIntegrityError, ArtifactStoreError } from '../../../src/domain/errors.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('local artifact store', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'driftgate-artifacts-'));
  });
  afterEach(() => {
    chmodSync(tmp, 0o700);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('round-trips binary bodies byte for byte, in 0600 files inside 0700 dirs', async () => {
    const dir = join(tmp, 'artifacts');
    const store = createLocalArtifactStore({ dir });
    const body = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256));
    const stored = await store.put('runs/r_1/plan.tfplan', body);
    expect(stored).toEqual({
      key: 'runs/r_1/plan.tfplan',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      size: 4096,
    });
    expect((await store.get('runs/r_1/plan.tfplan', stored.sha256)).equals(body)).toBe(true);
    expect((await store.get('runs/r_1/plan.tfplan')).equals(body)).toBe(true);
    expect(await store.put('runs/r_1/plan.json', '{"a":"é"}')).toMatchObject({ size: 10 });
    expect((await store.get('runs/r_1/plan.json')).toString()).toBe('{"a":"é"}');

    expect(store.location).toBe(dir);
    for (const d of [dir, join(dir, 'runs'), join(dir, 'runs/r_1')]) expect(mode(d)).toBe(0o700);
    expect(mode(join(dir, 'runs/r_1/plan.tfplan'))).toBe(0o600);
    // no temp files left behind by the atomic writes
    expect(readdirSync(join(dir, 'runs/r_1')).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('tightens an existing artifact dir that is open to others', async () => {
    const dir = join(tmp, 'artifacts');
    mkdirSync(join(dir, 'runs'), { recursive: true });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'runs'), 0o777);
    await createLocalArtifactStore({ dir }).put('runs/r_1/log.txt', 'x');
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'runs'))).toBe(0o700);
  });

  it('refuses a tampered file, against the recorded checksum and against the expected one', async () => {
    const dir = join(tmp, 'artifacts');
    const store = createLocalArtifactStore({ dir });
    const { sha256 } = await store.put('runs/r_1/plan.tfplan', 'original plan');
    writeFileSync(join(dir, 'runs/r_1/plan.tfplan'), 'tampered plan');
    await expect(store.get('runs/r_1/plan.tfplan')).rejects.toBeInstanceOf(ArtifactIntegrityError);
    const err = await store.get('runs/r_1/plan.tfplan', sha256).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArtifactIntegrityError);
    expect((err as ArtifactIntegrityError).expected).toBe(sha256);
    await store.put('runs/r_1/plan.tfplan', 'replanned');
    await expect(store.get('runs/r_1/plan.tfplan', sha256)).rejects.toThrow(/refusing to use it/);
  });

  it.each([
    ['../escape', '".."'],
    ['runs/../../etc/passwd', '".."'],
    ['/etc/passwd', 'absolute'],
    ['', 'empty'],
    ['runs//plan', 'empty path segment'],
    ['runs/.plan.tfplan.sha256', 'starts with "."'],
    ['runs\\..\\x', 'backslash'],
  ])('rejects the key %j (%s) without touching the disk', async (key, reason) => {
    const dir = join(tmp, 'artifacts');
    const store = createLocalArtifactStore({ dir });
    const attempts: (() => Promise<unknown>)[] = [
      () => store.put(key, 'x'),
      () => store.get(key),
      () => store.delete(key),
    ];
    for (const attempt of attempts) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidArtifactKeyError);
      expect(err).toBeInstanceOf(ArtifactStoreError);
      expect((err as Error).message).toContain(reason);
    }
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('turns file system failures into ArtifactStoreError naming the location and the cause', async () => {
    const dir = join(tmp, 'artifacts');
    const store = createLocalArtifactStore({ dir });
    await store.put('runs/r_1/plan.tfplan', 'x');
    await expect(store.get('runs/r_2/plan.tfplan')).rejects.toThrow(
      `cannot read artifact runs/r_2/plan.tfplan in ${dir}: ENOENT`,
    );

    const blocked = createLocalArtifactStore({ dir: join(tmp, 'file-not-dir', 'artifacts') });
    writeFileSync(join(tmp, 'file-not-dir'), 'not a directory');
    const err = await blocked.put('runs/r_1/plan.tfplan', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArtifactStoreError);
    expect((err as Error).message).toMatch(
      /cannot write artifact runs\/r_1\/plan.tfplan in .*file-not-dir\/artifacts: (ENOTDIR|ENOENT)/,
    );
  });

  // root ignores directory permissions, so the failure cannot be provoked there.
  it.skipIf(process.getuid?.() === 0)('reports EACCES as permission denied', async () => {
    chmodSync(tmp, 0o500);
    const denied = createLocalArtifactStore({ dir: join(tmp, 'new-artifacts') });
    await expect(denied.put('runs/r_1/plan.tfplan', 'x')).rejects.toThrow(/EACCES \(permission denied\)/);
  });

  it('prunes files written before the cutoff with their checksums and empty dirs', async () => {
    let nowMs = Date.parse('2025-01-01T00:00:00Z');
    const dir = join(tmp, 'artifacts');
    const store = createLocalArtifactStore({ dir, now: () => new Date(nowMs) });
    await store.put('runs/r_old/plan.tfplan', 'old');
    await store.put('runs/r_old/plan.json', '{}');
    nowMs += 86_400_000;
    await store.put('runs/r_new/plan.tfplan', 'new');
    writeFileSync(join(dir, 'runs/r_new/.plan.tfplan.tmp-dead'), 'crash leftover');
    const stale = new Date(nowMs - 3_600_000);
    utimesSync(join(dir, 'runs/r_new/.plan.tfplan.tmp-dead'), stale, stale);

    expect(await store.prune(new Date(nowMs - 1000))).toBe(2);
    expect(readdirSync(join(dir, 'runs'))).toEqual(['r_new']);
    expect(readdirSync(join(dir, 'runs/r_new')).sort()).toEqual(['.plan.tfplan.sha256', 'plan.tfplan']);
    expect(readFileSync(join(dir, 'runs/r_new/plan.tfplan'), 'utf8')).toBe('new');
    expect(await store.prune(new Date(nowMs - 1000))).toBe(0);
    expect(await createLocalArtifactStore({ dir: join(tmp, 'never-written') }).prune(new Date())).toBe(0);
  });

  it('is chosen by the factory for local config, under <dataDir>/artifacts by default', async () => {
    const store = await createArtifactStore({ type: 'local' }, { dataDir: tmp, env: {} });
    expect(store.location).toBe(join(tmp, 'artifacts'));
    const custom = await createArtifactStore({ type: 'local', dir: join(tmp, 'elsewhere') }, { dataDir: tmp, env: {} });
    await custom.put('a/b', 'x');
    expect(readFileSync(join(tmp, 'elsewhere/a/b'), 'utf8')).toBe('x');
  });
});
