import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ownerState, processOwner } from '../../../src/adapters/store/shared/process-owner.js';
import { manualClock, useTempStore } from './temp-store.js';

const children: ChildProcess[] = [];

/** A real process that runs until killed: the owner of locks and runs in these tests. */
function liveProcess(): ChildProcess & { pid: number } {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  return child as ChildProcess & { pid: number };
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) await kill9(child);
});

describe('process owners', () => {
  it('sees another process alive while it runs, and gone once killed', async () => {
    const child = liveProcess();
    const owner = processOwner(child.pid);
    expect(owner.start).not.toBe('');
    expect(ownerState(owner)).toBe('alive');
    await kill9(child);
    expect(ownerState(owner)).toBe('gone');
  });

  it('tells a reused pid apart by its start time, and says nothing for another host', () => {
    const child = liveProcess();
    expect(ownerState({ ...processOwner(child.pid), start: 'another-boot:42' })).toBe('gone');
    expect(ownerState({ ...processOwner(child.pid), host: 'elsewhere' })).toBe('unknown');
  });

  it('counts an owner on this host as alive when /proc cannot be read', () => {
    const noProc = (path: string): string => {
      throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    };
    expect(ownerState({ ...processOwner(), pid: 999_999_999 }, processOwner(), noProc)).toBe('alive');
  });
});

describe('locks and runs of live and dead owners', () => {
  const tmp = useTempStore();

  it('keeps an expired lock while its owner runs, and frees it once the owner is killed', async () => {
    const clock = manualClock();
    const child = liveProcess();
    const held = tmp.open({ now: clock.now, owner: processOwner(child.pid) });
    expect(await held.acquireLock('net', 'r_a', 10_000)).toMatchObject({ lock: { owner: processOwner(child.pid) } });
    const other = tmp.open({ now: clock.now });
    clock.advance(10_001);
    expect(await other.acquireLock('net', 'r_b', 10_000)).toMatchObject({ acquired: false, holder: { runId: 'r_a' } });
    expect((await other.getLock('net'))?.runId).toBe('r_a');
    await kill9(child);
    expect(await other.acquireLock('net', 'r_b', 10_000)).toMatchObject({ acquired: true, lock: { runId: 'r_b' } });
  });

  it('recovers only the runs whose owner is gone', async () => {
    const clock = manualClock();
    const alive = liveProcess();
    const dead = liveProcess();
    const running = await tmp.open({ now: clock.now, owner: processOwner(alive.pid) }).createRun({
      stack: 'a',
      trigger: 'manual',
    });
    const stranded = await tmp.open({ now: clock.now, owner: processOwner(dead.pid) }).createRun({
      stack: 'b',
      trigger: 'manual',
    });
    await kill9(dead);
    const serve = tmp.open({ now: clock.now });
    expect((await serve.recoverInterrupted()).map((r) => r.id)).toEqual([stranded.id]);
    expect((await serve.getRun(running.id))?.state).toBe('planning');
  });

  it('leaves the unannounced outcomes of a live owner alone, and lists those of a killed one until announced', async () => {
    const alive = liveProcess();
    const dead = liveProcess();
    const told = async (owner: ChildProcess & { pid: number }, stack: string) => {
      const store = tmp.open({ owner: processOwner(owner.pid) });
      const run = await store.atomically(async (tx) => {
        const created = await tx.createRun({ stack, trigger: 'schedule' });
        await tx.transition(created.id, 'planning', 'drifted', { kind: 'drift', fingerprint: 'f1' });
        await tx.announce(created.id, { type: 'drift_detected' });
        return created;
      });
      return run.id;
    };
    await told(alive, 'a');
    const stranded = await told(dead, 'b');
    const resolved = tmp.open({ owner: processOwner(dead.pid) });
    await resolved.announce(stranded, { type: 'drift_resolved', previousFingerprint: 'f0', previousRunId: 'r_0' });
    await kill9(dead);
    const serve = tmp.open({});
    expect((await serve.listUnannounced()).map(({ run, announcement }) => [run.id, run.state, announcement])).toEqual([
      [stranded, 'drifted', { type: 'drift_resolved', previousFingerprint: 'f0', previousRunId: 'r_0' }],
    ]);
    await serve.announced(stranded);
    expect(await serve.listUnannounced()).toEqual([]);
  });

  it('records nothing of a transaction that fails part way', async () => {
    const store = tmp.open({});
    const run = await store.createRun({ stack: 'a', trigger: 'schedule' });
    await expect(
      store.atomically(async (tx) => {
        await tx.transition(run.id, 'planning', 'drifted', { kind: 'drift', fingerprint: 'f1' });
        await tx.announce(run.id, { type: 'drift_detected' });
        throw new Error('died here');
      }),
    ).rejects.toThrow('died here');
    expect((await store.getRun(run.id))?.state).toBe('planning');
    expect(await store.listUnannounced()).toEqual([]);
  });
});
