import { describe, expect, it } from 'vitest';
import {
  ATTRIBUTED_CHANGES_KEPT,
  type AttributedChange,
  type Attribution,
  mergeAttributions,
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
});
