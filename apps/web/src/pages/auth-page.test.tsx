import { AuthenticationError, BadRequestError } from '@releases/client';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/fake-api.js';
import type { Api, Credentials, User } from '../api.js';
import { ApiProvider } from '../api-context.js';
import { SessionProvider } from '../session.js';
import { AuthPage, type AuthMode } from './auth-page.js';

const me: User = { id: 'usr_1', email: 'me@example.com', created_at: '2024-01-01T00:00:00.000Z' };

function renderAuth(mode: AuthMode, api: Api, url: string) {
  window.history.replaceState(null, '', url);
  render(
    <ApiProvider api={api}>
      <SessionProvider>
        <AuthPage mode={mode} />
      </SessionProvider>
    </ApiProvider>,
  );
}

describe('signing in and up', () => {
  it('signs in and goes back where the user was headed (only ever on this site)', async () => {
    const user = userEvent.setup();
    const signIn = vi.fn<(credentials: Credentials) => Promise<User>>(() => Promise.resolve(me));
    renderAuth('signin', fakeApi({ signIn }), '/signin?next=%2Fsettings%2Fkeys');
    await user.type(screen.getByLabelText('Email'), 'me@example.com');
    await user.type(screen.getByLabelText('Password'), 'a long enough password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(signIn).toHaveBeenCalledWith({ email: 'me@example.com', password: 'a long enough password' });
    await waitFor(() => expect(window.location.pathname).toBe('/settings/keys'));
  });

  it('never follows a "next" to another site', async () => {
    const user = userEvent.setup();
    renderAuth('signin', fakeApi({ signIn: () => Promise.resolve(me) }), '/signin?next=//evil.example/x');
    await user.type(screen.getByLabelText('Email'), 'me@example.com');
    await user.type(screen.getByLabelText('Password'), 'a long enough password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(window.location.pathname).toBe('/'));
    expect(window.location.host).toBe('localhost:3000');
  });

  it("shows the server's answer in words beside its field, never the wire form of the problem", async () => {
    const user = userEvent.setup();
    const rule = 'is among the most common passwords, which attackers try first: choose another';
    const problem = {
      type: 'x/problems/invalid-request',
      title: 'Invalid request',
      status: 400,
      detail: `/password ${rule}.`,
      errors: [{ pointer: '/password', detail: rule }],
    };
    const signUp = vi.fn(() => Promise.reject(new BadRequestError(400, problem, new Headers())));
    renderAuth('signup', fakeApi({ signUp }), '/signup');
    const password = screen.getByLabelText('Password');
    expect(password.getAttribute('autocomplete')).toBe('new-password');
    await user.type(screen.getByLabelText('Email'), 'me@example.com');
    await user.type(password, 'password123');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(signUp).toHaveBeenCalledTimes(1);
    const alert = await screen.findByRole('alert', {}, { timeout: 2000 });
    await waitFor(() => expect(alert.textContent).toBe('Check the field marked below.'));
    expect(password.getAttribute('aria-invalid')).toBe('true');
    const message = document.getElementById(password.getAttribute('aria-describedby')?.split(' ').at(-1) ?? '');
    expect(message?.textContent).toBe(`Password ${rule}.`);
    expect(document.body.textContent).not.toContain('/password');
  });

  it('checks the form before sending, in words, one message per field', async () => {
    const user = userEvent.setup();
    const signUp = vi.fn(() => Promise.resolve(me));
    renderAuth('signup', fakeApi({ signUp }), '/signup');
    const email = screen.getByLabelText('Email');
    const password = screen.getByLabelText('Password');
    const messageOf = (field: HTMLElement) =>
      document.getElementById(field.getAttribute('aria-describedby')?.split(' ').at(-1) ?? '')?.textContent;

    // Both empty: each says what to enter; nothing compares the two.
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(signUp).not.toHaveBeenCalled();
    expect(messageOf(email)).toBe('Enter your email address.');
    expect(messageOf(password)).toBe('Enter a password.');
    expect(document.body.textContent).not.toContain('must not be');
    expect(screen.getByRole('alert').textContent).toBe('Check the 2 fields marked below.');

    await user.type(email, 'me@example.com');
    await user.type(password, 'short');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(email.getAttribute('aria-invalid')).toBeNull();
    expect(messageOf(password)).toBe('Password must be at least 10 characters.');

    await user.clear(password);
    await user.type(password, 'ME@example.com');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(messageOf(password)).toBe('Password must not be your email address.');
    expect(signUp).not.toHaveBeenCalled();
  });

  it('shows the button busy while waiting, and sends once however often it is pressed', async () => {
    const user = userEvent.setup();
    let answer: (value: User) => void = () => undefined;
    const signIn = vi.fn(() => new Promise<User>((resolve) => (answer = resolve)));
    renderAuth('signin', fakeApi({ signIn }), '/signin');
    await user.type(screen.getByLabelText('Email'), 'me@example.com');
    await user.type(screen.getByLabelText('Password'), 'a long enough password');
    const button = screen.getByRole('button', { name: 'Sign in' });
    await user.click(button);
    expect(button.getAttribute('aria-disabled')).toBe('true');
    await user.click(button);
    await user.keyboard('{Enter}');
    expect(signIn).toHaveBeenCalledTimes(1);
    answer(me);
    await waitFor(() => expect(window.location.pathname).toBe('/'));
  });

  it('says the one thing the server says for a wrong email or password', async () => {
    const user = userEvent.setup();
    const problem = {
      type: 'x/problems/unauthorized',
      title: 'Unauthorized',
      status: 401,
      detail: 'The email or password is not right.',
    };
    renderAuth(
      'signin',
      fakeApi({ signIn: () => Promise.reject(new AuthenticationError(401, problem, new Headers())) }),
      '/signin',
    );
    await user.type(screen.getByLabelText('Email'), 'me@example.com');
    await user.type(screen.getByLabelText('Password'), 'wrong password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect((await screen.findByRole('alert')).textContent).toBe(problem.detail);
    expect(window.location.pathname).toBe('/signin');
  });
});
