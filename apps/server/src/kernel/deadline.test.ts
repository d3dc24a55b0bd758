import { describe, expect, it } from 'vitest';
import { pollUntil, retryWhile, settlesWithin, withDeadline } from './deadline.js';

const never = new Promise<never>(() => undefined);

describe('withDeadline', () => {
  it('gives the work its result when it finishes in time', async () => {
    await expect(
      withDeadline(
        1_000,
        async () => 'done',
        () => new Error('late'),
      ),
    ).resolves.toBe('done');
  });

  it('throws what timedOut makes at the deadline, and aborts the signal, whatever the work does', async () => {
    let signal: AbortSignal | undefined;
    const started = performance.now();
    await expect(
      withDeadline(
        50,
        (given) => {
          signal = given;
          return never;
        },
        () => new Error('late'),
      ),
    ).rejects.toThrow('late');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(signal?.aborted).toBe(true);
  });

  it('passes the work’s own failure on, and leaves no unhandled rejection after the deadline', async () => {
    await expect(
      withDeadline(
        1_000,
        () => Promise.reject(new Error('own')),
        () => new Error('late'),
      ),
    ).rejects.toThrow('own');
    await expect(
      withDeadline(
        10,
        () => new Promise((_, reject) => setTimeout(() => reject(new Error('after')), 30)),
        () => new Error('late'),
      ),
    ).rejects.toThrow('late');
    await new Promise((resolve) => setTimeout(resolve, 40));
  });
});

describe('settlesWithin', () => {
  it('says whether a promise settled in time, a rejection counting as settled', async () => {
    await expect(settlesWithin(Promise.resolve(), 50)).resolves.toBe(true);
    await expect(settlesWithin(Promise.reject(new Error('no')), 50)).resolves.toBe(true);
    await expect(settlesWithin(never, 20)).resolves.toBe(false);
  });
});

describe('pollUntil', () => {
  it('is true as soon as the condition holds, false once the time is spent', async () => {
    let calls = 0;
    await expect(pollUntil(() => ++calls >= 3, { timeoutMs: 1_000, intervalMs: 5 })).resolves.toBe(true);
    expect(calls).toBe(3);
    const started = performance.now();
    await expect(pollUntil(() => false, { timeoutMs: 40, intervalMs: 10 })).resolves.toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('retryWhile', () => {
  const options = {
    firstPauseMs: 1,
    maxPauseMs: 4,
    timedOut: (error: unknown) => new Error('gave up', { cause: error }),
  };

  it('retries a retryable failure until the work succeeds', async () => {
    let attempts = 0;
    const work = async () => {
      if (++attempts < 4) throw new Error('busy');
      return attempts;
    };
    await expect(retryWhile(work, { ...options, retryable: () => true, timeoutMs: 1_000 })).resolves.toBe(4);
  });

  it('throws any other failure at once, and timedOut once the time is spent', async () => {
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw new Error('broken');
    };
    await expect(retryWhile(failing, { ...options, retryable: () => false, timeoutMs: 1_000 })).rejects.toThrow(
      'broken',
    );
    expect(attempts).toBe(1);
    await expect(retryWhile(failing, { ...options, retryable: () => true, timeoutMs: 30 })).rejects.toThrow('gave up');
    expect(attempts).toBeGreaterThan(2);
  });
});
