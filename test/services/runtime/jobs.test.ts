import { describe, expect, it } from 'vitest';
import { createJobs } from '../../../src/services/runtime/jobs.js';

const quiet = { error: () => undefined };

describe('jobs: work handed off after an ack', () => {
  it('runs every job, in order of hand-off, and idle() waits for jobs started by jobs', async () => {
    const jobs = createJobs({ logger: quiet });
    const done: string[] = [];
    jobs.run('a', async () => {
      done.push('a');
      jobs.run('c', async () => void done.push('c'));
    });
    jobs.run('b', async () => void done.push('b'));
    expect(done).toEqual([]);
    await jobs.idle();
    expect(done).toEqual(['a', 'b', 'c']);
  });

  it('logs a failing job with its name and goes on with the rest', async () => {
    const errors: unknown[] = [];
    const jobs = createJobs({ logger: { error: (obj: object) => void errors.push(obj) } });
    jobs.run('broken', async () => {
      throw new Error('boom');
    });
    let ran = false;
    jobs.run('fine', async () => {
      ran = true;
    });
    await jobs.idle();
    expect(ran).toBe(true);
    expect(errors).toEqual([{ err: 'boom', job: 'broken' }]);
  });

  it('holds jobs back while requests keep arriving, but never past maxDelayMs', async () => {
    let busy = true;
    const jobs = createJobs({ logger: quiet, busy: () => busy, maxDelayMs: 10_000 });
    let ran = false;
    jobs.run('held', async () => {
      ran = true;
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(ran).toBe(false);
    busy = false;
    await jobs.idle();
    expect(ran).toBe(true);

    const starved = createJobs({ logger: quiet, busy: () => true, maxDelayMs: 20 });
    let eventually = false;
    starved.run('starved', async () => {
      eventually = true;
    });
    await starved.idle();
    expect(eventually).toBe(true);
  });
});
