/**
 * A log line a burst could repeat thousands of times (one per event of a console deploy): the first is
 * written at once, the next ones at most once per `everyMs`, each saying how many went unsaid before it.
 */
export function sampledLog(everyMs: number, now: () => Date): (write: (unsaid: number) => void) => void {
  let next = Number.NEGATIVE_INFINITY;
  let unsaid = 0;
  return (write) => {
    const at = now().getTime();
    if (at < next) {
      unsaid++;
      return;
    }
    write(unsaid);
    unsaid = 0;
    next = at + everyMs;
  };
}
