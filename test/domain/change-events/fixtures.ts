import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MatchedChange } from '../../../src/domain/change-events/intake.js';
import { type ChangeEvent, parseEventBridgeEvent } from '../../../src/domain/change-events/schema.js';

const DIR = join(import.meta.dirname, '../../fixtures/change-events');

export const FIXTURES = [
  'console-put-object-identity-center',
  'console-put-bucket-tagging-identity-center',
  'cli-iam-user',
  'assumed-role-sdk',
  'root',
  'read-only-get-object',
  'terraform-own-role',
] as const;
export type FixtureName = (typeof FIXTURES)[number] | 'unknown-shape';

/** A fixture as AWS would send it: the raw JSON document. */
export function rawFixture(name: FixtureName): Record<string, unknown> {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Record<string, unknown>;
}

export function fixtureEvent(name: (typeof FIXTURES)[number]): ChangeEvent {
  return parseEventBridgeEvent(rawFixture(name));
}

/**
 * The doors' age rule on the fixtures' day: a clock at its last fixture's time (unknown-shape's) and a
 * window over the first, so every recorded event is recent enough; a test moves one out of it.
 */
export const FIXTURE_AGE = { now: () => new Date('2026-12-03T15:00:00Z'), maxAgeMs: 6 * 3600_000 };

/** A fixture with its `detail` changed, for the cases no recorded event shows. */
export function withDetail(name: (typeof FIXTURES)[number], change: (detail: Record<string, unknown>) => void) {
  const raw = rawFixture(name);
  change(raw.detail as Record<string, unknown>);
  return parseEventBridgeEvent(raw);
}

/** A change an event matched to a stack's resource, as the intake keeps it for the stack's next check. */
export function matchedChange(
  eventId: string,
  on: { stack: string; address: string; at?: string; name?: string; eventName?: string },
): MatchedChange {
  const name = on.name ?? 'alice';
  return {
    principal: { kind: 'iam_user', name, display: `${name} (IAM user)` },
    how: 'console',
    eventName: on.eventName ?? 'PutBucketTagging',
    eventSource: 's3.amazonaws.com',
    at: new Date(on.at ?? '2026-12-03T15:00:00Z'),
    eventId,
    account: '111122223333',
    region: 'eu-west-1',
    consoleUrl: `https://eu-west-1.console.aws.amazon.com/cloudtrail/home?region=eu-west-1#/events/${eventId}`,
    resources: [{ stack: on.stack, address: on.address }],
  };
}
