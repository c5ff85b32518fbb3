import { formatDuration } from '../duration.js';
import type { ChangeEvent } from './schema.js';

/** How far ahead of driftgate's clock an event's time may be: clocks differ, by little. */
export const MAX_EVENT_AHEAD_MS = 5 * 60_000;

export type EventAge =
  | { ok: true }
  | {
      ok: false;
      reason: 'too_old' | 'in_future';
      /** The event's time as it says it, and what is wrong with it, for a log line and an answer. */
      eventTime: string;
      why: string;
    };

/**
 * Whether an event is recent enough to act on, by its own time (the call's, as CloudTrail wrote it). One
 * older than `maxAgeMs` was held back or is sent again long after (a replay of a captured request): the
 * scheduled check finds what drift it left, and acting on it would ask for a check and name who changed
 * what from stale news. One from further ahead than clocks differ was not written by AWS as it came.
 */
export function eventAge(event: ChangeEvent, now: Date, maxAgeMs: number): EventAge {
  const eventTime = event.record.eventTime;
  const ageMs = now.getTime() - Date.parse(eventTime);
  if (ageMs > maxAgeMs)
    return {
      ok: false,
      reason: 'too_old',
      eventTime,
      why: `its time ${eventTime} is ${formatDuration(ageMs)} ago, more than changeEvents.maxEventAge (${formatDuration(maxAgeMs)})`,
    };
  if (-ageMs > MAX_EVENT_AHEAD_MS)
    return {
      ok: false,
      reason: 'in_future',
      eventTime,
      why: `its time ${eventTime} is ${formatDuration(-ageMs)} ahead of this server's clock, more than ${formatDuration(MAX_EVENT_AHEAD_MS)}`,
    };
  return { ok: true };
}
