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

  it("shows the server's answer: its detail, and each field's error beside the field", async () => {
    const user = userEvent.setup();
    const problem = {
      type: 'x/problems/invalid-request',
      title: 'Invalid request',
      status: 400,
      detail: '/password must be at least 10 characters.',
      errors: [{ pointer: '/password', detail: 'must be at least 10 characters' }],
    };
    renderAuth(
      'signup',
      fakeApi({ signUp: () => Promise.reject(new BadRequestError(400, problem, new Headers())) }),
      '/signup',
    );
    const password = screen.getByLabelText('Password');
    expect(password.getAttribute('autocomplete')).toBe('new-password');
    await user.type(screen.getByLabelText('Email'), 'me@example.com');
    await user.type(password, 'short');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect((await screen.findByRole('alert')).textContent).toBe(problem.detail);
    expect(password.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('must be at least 10 characters').id).toBe(
      password.getAttribute('aria-describedby')?.split(' ').at(-1),
    );
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
