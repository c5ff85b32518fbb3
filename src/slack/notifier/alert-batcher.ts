/**
 * Tells an alert storm from a single drift: alerts for one channel are gathered for `windowMs`; more than
 * `threshold` of them become one digest, fewer go out one by one. With a zero window every alert goes out
 * at once. The batcher itself keeps alerts in memory only: the notifier records each alert before adding
 * it here, and a restart hands it the ones a crash caught in their window (Notifier.resume).
 */
export interface AlertBatcherOptions<T> {
  windowMs: number;
  threshold: number;
  single(alert: T): Promise<void>;
  digest(channel: string, alerts: T[]): Promise<void>;
  onError(err: unknown): void;
}

export interface AlertBatcher<T> {
  add(channel: string, alert: T): void;
  /** Sends what is held now (shutdown, tests). */
  flush(): Promise<void>;
}

export function createAlertBatcher<T>(options: AlertBatcherOptions<T>): AlertBatcher<T> {
  const windows = new Map<string, { alerts: T[]; timer: NodeJS.Timeout }>();
  const sending = new Set<Promise<void>>();

  function send(channel: string): Promise<void> {
    const window = windows.get(channel);
    if (!window) return Promise.resolve();
    windows.delete(channel);
    clearTimeout(window.timer);
    const { alerts } = window;
    const done = (alerts.length > options.threshold ? options.digest(channel, alerts) : sequential(alerts))
      .catch(options.onError)
      .finally(() => sending.delete(done));
    sending.add(done);
    return done;
  }

  async function sequential(alerts: T[]): Promise<void> {
    for (const alert of alerts) await options.single(alert);
  }

  return {
    add(channel, alert) {
      if (options.windowMs <= 0) {
        const done = options
          .single(alert)
          .catch(options.onError)
          .finally(() => sending.delete(done));
        sending.add(done);
        return;
      }
      const window = windows.get(channel);
      if (window) window.alerts.push(alert);
      else windows.set(channel, { alerts: [alert], timer: setTimeout(() => void send(channel), options.windowMs) });
    },
    async flush() {
      await Promise.all([...windows.keys()].map(send));
      await Promise.all([...sending]);
    },
  };
}
