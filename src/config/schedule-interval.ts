import cron from 'node-cron';

/**
 * The shortest time in minutes between two runs of a cron schedule, within a day and across midnight
 * (days of month and week only make runs rarer, never closer). A schedule with several seconds a minute
 * runs more often than once a minute: its interval is below 1.
 */
export function shortestIntervalMinutes(expression: string): number {
  const fields = cron.parse(expression);
  if (fields.second.length > 1) return 60 / fields.second.length / 60;
  const times = fields.hour.flatMap((h) => fields.minute.map((m) => h * 60 + m)).sort((a, b) => a - b);
  if (times.length <= 1) return 24 * 60;
  let shortest = times[0]! + 24 * 60 - times[times.length - 1]!;
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, times[i]! - times[i - 1]!);
  return shortest;
}
