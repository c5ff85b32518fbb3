import { describe, expect, it } from 'vitest';
import { createClassifier } from '../../../src/domain/change-events/classify.js';
import { type CheckRequest, createCheckDebouncer } from '../../../src/domain/change-events/debounce.js';
import { type MatchedChange, takeChangeEvent } from '../../../src/domain/change-events/intake.js';
import { ResourceIndex } from '../../../src/domain/change-events/resource-index.js';
import { fixtureEvent } from './fixtures.js';

function setup() {
  const index = new ResourceIndex();
  index.replaceStack('prod/assets', [
    { address: 'aws_s3_bucket.assets', identifiers: ['acme-prod-assets', 'arn:aws:s3:::acme-prod-assets'] },
  ]);
  index.replaceStack('prod/api', [{ address: 'aws_lambda_function.orders', identifiers: ['orders-api'] }]);
  const due: CheckRequest<MatchedChange>[] = [];
  const timers: (() => void)[] = [];
  const debouncer = createCheckDebouncer<MatchedChange>({
    timer: { setTimeout: (fn) => timers.push(fn), clearTimeout: () => {} },
    onDue: (r) => due.push(r),
  });
  const deps = {
    classify: createClassifier({
      ownIdentities: ['arn:aws:iam::*:role/driftgate-*'],
      automation: [{ name: 'ci', arn: 'arn:aws:iam::111122223333:role/ci-*' }],
    }),
    index,
    debouncer,
  };
  const fire = () => {
    for (const fn of timers.splice(0)) fn();
  };
  return { deps, due, fire, debouncer };
}

describe('taking a change event', () => {
  it('queues a check of the stack that owns what the event changed, with who and how', () => {
    const { deps, due, fire } = setup();
    const outcome = takeChangeEvent(deps, fixtureEvent('root'));
    expect(outcome).toMatchObject({
      kind: 'queued',
      stacks: [{ stack: 'prod/assets', result: 'scheduled' }],
      change: {
        principal: { kind: 'root' },
        eventName: 'DeleteBucketPolicy',
        resources: [{ address: 'aws_s3_bucket.assets' }],
      },
    });
    fire();
    expect(due.map((r) => [r.stack, r.resources, r.changes.map((c) => c.eventName)])).toEqual([
      ['prod/assets', ['aws_s3_bucket.assets'], ['DeleteBucketPolicy']],
    ]);
  });

  it('counts what it ignores by reason and rule, and what matches nothing', () => {
    const { deps, debouncer } = setup();
    expect(takeChangeEvent(deps, fixtureEvent('read-only-get-object')).kind).toBe('ignored');
    expect(takeChangeEvent(deps, fixtureEvent('terraform-own-role')).kind).toBe('ignored');
    expect(takeChangeEvent(deps, fixtureEvent('assumed-role-sdk')).kind).toBe('ignored');
    const unmatched = takeChangeEvent(deps, fixtureEvent('cli-iam-user'));
    expect(unmatched).toMatchObject({
      kind: 'unmatched',
      identifiers: expect.arrayContaining(['sg-0a1b2c3d4e5f60718']),
    });
    expect(debouncer.counters()).toMatchObject({
      scheduled: 0,
      unmatched: 1,
      ignored: { read_only: 1, own_apply: 1, 'automation:ci': 1 },
    });
  });
});
