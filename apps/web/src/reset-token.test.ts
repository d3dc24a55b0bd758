import { describe, expect, it } from 'vitest';
import { captureResetToken, forgetResetToken, resetToken } from './reset-token.js';

describe('the reset link token', () => {
  it('is read from the fragment, then taken out of the address bar without a new history entry', () => {
    window.history.replaceState({ entry: 'e1' }, '', '/reset-password#token=abc_DEF-123');
    const length = window.history.length;
    captureResetToken();
    expect(resetToken()).toBe('abc_DEF-123');
    expect(window.location.hash).toBe('');
    expect(window.location.pathname).toBe('/reset-password');
    expect(window.history.length).toBe(length);
    expect(window.history.state).toEqual({ entry: 'e1' });
    // Read again (the page mounting after main.tsx): the token it already has stays.
    captureResetToken();
    expect(resetToken()).toBe('abc_DEF-123');
    forgetResetToken();
    expect(resetToken()).toBeUndefined();
  });

  it('leaves other pages and their fragments alone', () => {
    window.history.replaceState(null, '', '/signin#token=not-for-here');
    captureResetToken();
    expect(resetToken()).toBeUndefined();
    expect(window.location.hash).toBe('#token=not-for-here');
  });
});
