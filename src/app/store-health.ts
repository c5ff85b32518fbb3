import { errorMessage } from '../domain/errors.js';
import type { Store } from '../ports/store.js';

export interface StoreHealth {
  /** The last answer: ok, or why not (for `/readyz`). */
  current(): { ok: true } | { ok: false; reason: string };
  stop(): void;
}

/**
 * Asks the store every `intervalMs` whether it answers, so `/readyz` can say "not ready" while Postgres is
 * unreachable (a load balancer then sends clicks to a replica that can take them) without a query per probe.
 */
export function watchStoreHealth(
  store: Pick<Store, 'ping'>,
  options: { intervalMs?: number; timeoutMs?: number; onChange?: (ok: boolean, reason?: string) => void } = {},
): StoreHealth {
  const intervalMs = options.intervalMs ?? 5000;
  const timeoutMs = options.timeoutMs ?? 3000;
  let state: { ok: true } | { ok: false; reason: string } = { ok: true };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const set = (next: typeof state) => {
    if (next.ok !== state.ok) options.onChange?.(next.ok, next.ok ? undefined : next.reason);
    state = next;
  };
  const probe = async () => {
    let timeout: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        store.ping(),
        new Promise((_, reject) => {
          timeout = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      set({ ok: true });
    } catch (err) {
      set({ ok: false, reason: `store: ${errorMessage(err)}` });
    } finally {
      clearTimeout(timeout);
    }
    if (!stopped) timer = setTimeout(() => void probe(), intervalMs);
  };
  timer = setTimeout(() => void probe(), intervalMs);

  return {
    current: () => state,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
