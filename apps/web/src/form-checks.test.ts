import { BadRequestError, RateLimitError } from '@releases/client';
import { describe, expect, it } from 'vitest';
import { fieldErrors, retryDelay } from './api.js';
import { emailProblem, fieldsAlert, newPasswordProblem, problems } from './form-checks.js';
import { formatRelative } from './format.js';

describe('what a form says before sending', () => {
  it('asks for what is missing, in words, and compares two fields only when both are filled in', () => {
    expect(emailProblem('')).toBe('Enter your email address.');
    expect(emailProblem('not an address')).toBe('Enter an email address like name@example.com.');
    expect(emailProblem(' me@example.com ')).toBeUndefined();
    expect(newPasswordProblem('', '')).toBe('Enter a password.');
    expect(newPasswordProblem('', 'me@example.com', 'New password')).toBe('Enter a new password.');
    expect(newPasswordProblem('short', 'me@example.com')).toBe('Password must be at least 10 characters.');
    expect(newPasswordProblem(' Me@Example.com ', 'me@example.com')).toBe('Password must not be your email address.');
    // An empty email compares with nothing.
    expect(newPasswordProblem('a long enough password', '')).toBeUndefined();
  });

  it('points at the fields rather than repeating them, and keeps only the fields with a problem', () => {
    const found = problems({ email: 'Enter your email address.', password: undefined });
    expect(found).toEqual({ email: 'Enter your email address.' });
    expect(fieldsAlert(found)).toBe('Check the field marked below.');
    expect(fieldsAlert({ a: 'x', b: 'y' })).toBe('Check the 2 fields marked below.');
    expect(fieldsAlert({})).toBeUndefined();
  });
});

describe("the API's answers, for people", () => {
  const problem = (errors: Array<{ pointer?: string; parameter?: string; detail: string }>) =>
    new BadRequestError(
      400,
      { type: 'x/problems/invalid-request', title: 'Invalid request', status: 400, detail: 'x', errors },
      new Headers(),
    );

  it("puts each field's rule after the field's label, as a sentence, first problem per field", () => {
    const error = problem([
      { pointer: '/new_password', detail: 'must be at least 10 characters' },
      { pointer: '/new_password', detail: 'a second problem' },
      { pointer: '/email', detail: 'must be an email address' },
      { parameter: 'languages', detail: '"xx-bad" is not a BCP 47 language tag' },
    ]);
    expect(fieldErrors(error, { email: 'Email' })).toEqual({
      new_password: 'New password must be at least 10 characters.',
      email: 'Email must be an email address.',
      languages: 'Languages "xx-bad" is not a BCP 47 language tag.',
    });
    expect(fieldErrors(new Error('not an API error'))).toEqual({});
  });

  it("waits a 429's Retry-After before reading again (within bounds), and nothing else", () => {
    const limited = (retryAfter: string | undefined) =>
      new RateLimitError(
        429,
        { type: 'x/problems/rate-limited', title: 'Too many requests', status: 429, detail: 'Slow down.' },
        new Headers(retryAfter ? { 'retry-after': retryAfter } : {}),
      );
    expect(retryDelay(limited('12'))).toBe(12_000);
    expect(retryDelay(limited('0'))).toBe(1_000);
    expect(retryDelay(limited('3600'))).toBe(60_000);
    expect(retryDelay(limited(undefined))).toBe(5_000);
    expect(retryDelay(problem([]))).toBeUndefined();
  });
});

describe('relative times', () => {
  it('says how long ago (or until) in the largest unit that fits', () => {
    const now = Date.parse('2026-03-10T12:00:00.000Z');
    expect(formatRelative('2026-03-10T11:59:30.000Z', now)).toBe('just now');
    expect(formatRelative('2026-03-10T10:00:00.000Z', now)).toBe('2 hours ago');
    expect(formatRelative('2026-03-09T12:00:00.000Z', now)).toBe('yesterday');
    expect(formatRelative('2026-03-17T12:00:00.000Z', now)).toBe('next week');
    expect(formatRelative('not a time', now)).toBe('not a time');
  });
});
