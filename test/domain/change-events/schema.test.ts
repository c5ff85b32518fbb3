import { describe, expect, it } from 'vitest';
import {
  ChangeEventError,
  parseEventBridgeEvent,
  parseLookupRecord,
} from '../../../src/domain/change-events/schema.js';
import { FIXTURES, rawFixture } from './fixtures.js';

describe('change event schemas', () => {
  it.each(FIXTURES)('reads the EventBridge event %s', (name) => {
    const event = parseEventBridgeEvent(rawFixture(name));
    expect(event.via).toBe('eventbridge');
    expect(event.account).toBe('111122223333');
    expect(event.region).toBe('eu-west-1');
    expect(event.record.eventID).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps fields it does not know (AWS adds them freely)', () => {
    const event = parseEventBridgeEvent(rawFixture('console-put-object-identity-center'));
    expect((event.record as Record<string, unknown>).additionalEventData).toMatchObject({ SignatureVersion: 'SigV4' });
  });

  it('reads "true" in sessionCredentialFromConsole as a boolean', () => {
    expect(parseEventBridgeEvent(rawFixture('root')).record.sessionCredentialFromConsole).toBe(true);
  });

  it('names every missing required field of an unknown shape by its path', () => {
    const error = (() => {
      try {
        parseEventBridgeEvent(rawFixture('unknown-shape'));
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(ChangeEventError);
    const { issues, code } = error as ChangeEventError;
    expect(code).toBe('CHANGE_EVENT_INVALID');
    expect(issues.map((i) => i.path).sort()).toEqual(['detail.eventName', 'detail.userIdentity']);
    expect((error as Error).message).toContain('invalid EventBridge CloudTrail event:');
  });

  it('refuses another detail-type, saying what it expected', () => {
    const raw = { ...rawFixture('root'), 'detail-type': 'EC2 Instance State-change Notification' };
    expect(() => parseEventBridgeEvent(raw)).toThrow(/detail-type.*AWS API Call via CloudTrail/s);
  });

  it.each([
    ['not an object', 'hello'],
    ['null', null],
    ['an array', [1, 2]],
  ])('refuses a body that is %s', (_what, raw) => {
    expect(() => parseEventBridgeEvent(raw)).toThrow(ChangeEventError);
  });

  it('names a wrong type deep in the record', () => {
    const raw = rawFixture('cli-iam-user');
    (raw.detail as Record<string, unknown>).resources = [{ ARN: 42 }];
    expect(() => parseEventBridgeEvent(raw)).toThrow(/detail\.resources\[0\]\.ARN/);
  });

  it('reads the CloudTrailEvent text of a LookupEvents record', () => {
    const detail = rawFixture('assumed-role-sdk').detail;
    const event = parseLookupRecord(JSON.stringify(detail));
    expect(event).toMatchObject({ via: 'lookup', account: '111122223333', region: 'eu-west-1' });
    expect(event.record.eventName).toBe('UpdateFunctionConfiguration20150331v2');
  });

  it('does not echo a CloudTrailEvent that is not JSON', () => {
    expect(() => parseLookupRecord('{"secret": "hunter2"')).toThrow(ChangeEventError);
    try {
      parseLookupRecord('{"secret": "hunter2"');
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });
});
