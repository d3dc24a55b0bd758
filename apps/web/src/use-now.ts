import { useSyncExternalStore } from 'react';

/**
 * The current time, refreshed every `intervalMs` for the components that show relative times ("2 minutes
 * ago"): one timer per interval for the whole page, however many of them there are.
 */
const clocks = new Map<number, { now: number; listeners: Set<() => void>; timer?: ReturnType<typeof setInterval> }>();

function clock(intervalMs: number) {
  let entry = clocks.get(intervalMs);
  if (!entry) clocks.set(intervalMs, (entry = { now: Date.now(), listeners: new Set() }));
  return entry;
}

export function useNow(intervalMs = 30_000): number {
  const entry = clock(intervalMs);
  return useSyncExternalStore(
    (onChange) => {
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
    },
    () => entry.now,
  );
}
