import { useEffect, useState } from 'react';

export interface RetryCountdownProps {
  /** What could not be done ("The releases could not be loaded"). */
  what: string;
  /** When to try again, in `Date.now()` time. */
  at: number;
  onRetry: () => void;
}

/**
 * A 429 said plainly: what happened, and a countdown to the automatic retry (the server's `Retry-After`),
 * with a button to try at once. Never an endless "Loading…". The sentence is announced once (an alert); the
 * seconds tick visibly but are not read out each second.
 */
export function RetryCountdown({ what, at, onRetry }: RetryCountdownProps) {
  const [now, setNow] = useState(() => Date.now());
  const [announced] = useState(() => Math.max(1, Math.ceil((at - Date.now()) / 1000)));
  const left = Math.max(0, Math.ceil((at - now) / 1000));

  useEffect(() => {
    if (left === 0) {
      onRetry();
      return;
    }
    const timer = setTimeout(() => setNow(Date.now()), Math.min(1000, at - Date.now()));
    return () => clearTimeout(timer);
  }, [left, at, onRetry]);

  return (
    <div className="problem" role="alert">
      <p>
        {what}: the service is getting too many requests from here and asked us to wait. Trying again in{' '}
        <span className="countdown" aria-hidden="true">
          {left} s
        </span>
        <span className="visually-hidden">{announced} seconds</span>.
      </p>
      <button type="button" className="secondary" onClick={onRetry}>
        Try now
      </button>
    </div>
  );
}
