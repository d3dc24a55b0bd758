import { useCallback, useSyncExternalStore } from 'react';

/**
 * The current time, refreshed every `intervalMs` for the components that show relative times ("2 minutes
 * ago"): one timer per interval for the whole page, however many of them there are.
 */
interface Clock {
  now: number;
  listeners: Set<() => void>;
  timer?: ReturnType<typeof setInterval>;
}
const clocks = new Map<number, Clock>();

function clock(intervalMs: number): Clock {
  let found = clocks.get(intervalMs);
  if (!found) clocks.set(intervalMs, (found = { now: Date.now(), listeners: new Set() }));
  return found;
}

function subscribeClock(intervalMs: number, onChange: () => void): () => void {
  const entry = clock(intervalMs);
  entry.listeners.add(onChange);
  if (entry.listeners.size === 1) {
    entry.now = Date.now();
    entry.timer = setInterval(() => {
      entry.now = Date.now();
      for (const listener of entry.listeners) listener();
    }, intervalMs);
  }
  return () => {
    entry.listeners.delete(onChange);
    if (entry.listeners.size === 0) clearInterval(entry.timer);
  };
}

export function useNow(intervalMs = 30_000): number {
  const subscribe = useCallback((onChange: () => void) => subscribeClock(intervalMs, onChange), [intervalMs]);
  return useSyncExternalStore(subscribe, () => clock(intervalMs).now);
}
