import { describe, expect, it } from 'vitest';
import {
  ATTRIBUTED_CHANGES_KEPT,
  type AttributedChange,
  type Attribution,
  mergeAttributions,
  stillDrifting,
} from '../../../src/domain/change-events/attribution.js';
import { matchedChange } from './fixtures.js';

const change = (eventId: string, minute: number, address = 'aws_s3_bucket.assets'): AttributedChange => {
  const { resources: _, ...described } = matchedChange(eventId, {
    stack: 'prod/assets',
    address,
    at: new Date(Date.UTC(2026, 11, 3, 10, minute)).toISOString(),
  });
  return { ...described, resource: address };
};
const found = (...changes: AttributedChange[]): Attribution => ({ status: 'found', changes });
const ids = (a: Attribution | undefined) => (a?.status === 'found' ? a.changes.map((c) => c.eventId) : []);

describe('who made a drift, as known before and as just learned', () => {
  it('keeps each call once, oldest first', () => {
    const merged = mergeAttributions(found(change('b', 2), change('a', 1)), found(change('c', 3), change('b', 2)));
    expect(ids(merged)).toEqual(['a', 'b', 'c']);
  });

  it('never lets an answer that found nothing hide one that did', () => {
    expect(mergeAttributions(found(change('a', 1)), { status: 'none' })).toEqual(found(change('a', 1)));
    expect(mergeAttributions({ status: 'none' }, found(change('a', 1)))).toEqual(found(change('a', 1)));
    expect(mergeAttributions(undefined, { status: 'none' })).toEqual({ status: 'none' });
    expect(mergeAttributions({ status: 'unknown' }, undefined)).toEqual({ status: 'unknown' });
    expect(mergeAttributions(undefined, undefined)).toBeUndefined();
  });

  it('keeps saying CloudTrail did not answer about the rest', () => {
    expect(mergeAttributions({ status: 'unknown' }, found(change('a', 1)))).toMatchObject({ unanswered: true });
    expect(mergeAttributions(found(change('a', 1)), { status: 'unknown' })).toMatchObject({ unanswered: true });
    const partial: Attribution = { status: 'found', changes: [change('a', 1)], unanswered: true };
    expect(mergeAttributions(partial, found(change('b', 2)))).toMatchObject({ unanswered: true });
    expect(mergeAttributions(found(change('a', 1)), found(change('b', 2)))).not.toHaveProperty('unanswered');
  });

  it('keeps the newest ATTRIBUTED_CHANGES_KEPT of a drift nobody deals with', () => {
    const many = Array.from({ length: ATTRIBUTED_CHANGES_KEPT + 10 }, (_, i) => change(`e${i}`, i));
    const merged = mergeAttributions(found(...many.slice(0, 30)), found(...many.slice(30)));
    expect(ids(merged)).toEqual(many.slice(10).map((c) => c.eventId));
  });

  it('carries who made the drift of the resources still drifting, and nothing else of an earlier check', () => {
    // A call the index could not tie to a resource of the stack.
    const { resource: _, ...untied } = change('x', 3);
    const earlier: Attribution = {
      status: 'found',
      changes: [change('a', 1, 'aws_s3_object.a'), change('b', 2, 'aws_s3_object.b'), untied],
      unanswered: true,
      notLookedUp: 2,
    };
    expect(stillDrifting(earlier, new Set(['aws_s3_object.b', 'aws_s3_bucket.assets']))).toEqual(
      found(change('b', 2, 'aws_s3_object.b')),
    );
    expect(stillDrifting(earlier, new Set(['aws_s3_object.c']))).toBeUndefined();
    expect(stillDrifting({ status: 'none', notLookedUp: 3 }, new Set(['aws_s3_object.a']))).toBeUndefined();
    expect(stillDrifting(undefined, new Set(['aws_s3_object.a']))).toBeUndefined();
  });
});
