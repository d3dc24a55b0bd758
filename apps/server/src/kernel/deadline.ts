import { setTimeout as delay } from 'node:timers/promises';

/**
 * Every wait of the server that has a deadline, in one place: a call bounded in time, a condition polled for a
 * while, work retried while it is refused for a reason that passes. Each timer is cleared when the wait ends, so
 * nothing keeps the process alive or fires late.
 */

/**
 * Runs `work` with a signal that aborts at the deadline, and settles by then whatever `work` does: with its
 * result, or with `timedOut()` thrown once `timeoutMs` has passed (the signal aborted, so work that honours it
 * stops too). Work that fails after the deadline fails unobserved.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
  timedOut: () => unknown,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(timedOut());
      controller.abort();
    }, timeoutMs);
  });
  const running = work(controller.signal);
  running.catch(() => undefined);
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `promise` settled within `timeoutMs` (it goes on either way; its rejection is not observed here). */
export async function settlesWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = promise.then(
    () => true,
    () => true,
  );
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `condition` every `intervalMs` until it holds (true) or `timeoutMs` has passed (false). */
export async function pollUntil(
  condition: () => boolean,
  options: { timeoutMs: number; intervalMs: number },
): Promise<boolean> {
  const started = performance.now();
  for (;;) {
    if (condition()) return true;
    if (performance.now() - started + options.intervalMs > options.timeoutMs) return false;
    await delay(options.intervalMs);
  }
}

export interface RetryOptions {
  /** Whether a failure may pass if tried again (SQLite's write lock held by another connection). */
  retryable: (error: unknown) => boolean;
  /** How long to keep trying, from the first attempt (0: for as long as it takes). */
  timeoutMs: number;
  /** The first pause between attempts, doubled each time up to `maxPauseMs`. */
  firstPauseMs: number;
  maxPauseMs: number;
  /** What to throw when the time is up, given the last failure. */
  timedOut: (error: unknown) => unknown;
}

/**
 * Runs `work` until it succeeds, retrying a retryable failure after a pause that doubles, until `timeoutMs` is
 * spent; any other failure is thrown as it is. `work` must be safe to run again after a retryable failure.
 */
export async function retryWhile<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  const started = performance.now();
  let pause = options.firstPauseMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!options.retryable(error)) throw error;
      if (options.timeoutMs > 0 && performance.now() - started + pause > options.timeoutMs) {
        throw options.timedOut(error);
      }
      await delay(pause);
      pause = Math.min(pause * 2, options.maxPauseMs);
    }
  }
}
