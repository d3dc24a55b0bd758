/** Time, injectable so tests can move it (key expiry, sessions) without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
