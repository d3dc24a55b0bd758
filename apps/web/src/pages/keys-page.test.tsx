import { BadRequestError } from '@releases/client';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiKey, fakeApi } from '../../test/fake-api.js';
import type { Api, CreatedApiKey, NewKey } from '../api.js';
import { ApiProvider } from '../api-context.js';
import { SessionProvider } from '../session.js';
import { KeysPage, parseLifetime } from './keys-page.js';

const user1 = { id: 'usr_1', email: 'me@example.com', created_at: '2024-01-01T00:00:00.000Z' };
const secret = 'rls_0123456789abcdefghijABCDEFGHIJ0123456789';

function renderKeys(api: Api) {
  window.history.replaceState(null, '', '/settings/keys');
  return render(
    <ApiProvider api={api}>
      <SessionProvider>
        <KeysPage />
      </SessionProvider>
    </ApiProvider>,
  );
}

function signedInApi(overrides: Partial<Api> = {}): Api {
  const created: CreatedApiKey = { ...apiKey(9, { name: 'laptop', start: 'rls_01234567' }), key: secret };
  return fakeApi({
    session: () => Promise.resolve(user1),
    listKeys: () => Promise.resolve([apiKey(1, { name: 'older' })]),
    createKey: () => Promise.resolve(created),
    ...overrides,
  });
}

describe('the new key, shown once', () => {
  it('shows the key with Copy, the warning and a curl line, and forgets it when dismissed or reloaded', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const createKey = vi.fn<(key: NewKey) => Promise<CreatedApiKey>>(() =>
      Promise.resolve({ ...apiKey(9, { name: 'laptop', start: 'rls_01234567' }), key: secret }),
    );
    const api = signedInApi({ createKey });
    const view = renderKeys(api);

    await user.type(await screen.findByRole('textbox', { name: 'Name' }), 'laptop');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Expires in (days)' }), '30');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(createKey).toHaveBeenCalledWith({ name: 'laptop', expiresInDays: 30 });

    const panel = await screen.findByRole('region', { name: 'Your new key “laptop”' });
    expect(document.activeElement).toBe(panel);
    expect(panel.textContent).toContain('you will not see it again');
    expect(within(panel).getByText(secret, { selector: 'code' })).toBeTruthy();
    expect(within(panel).getByText(/^curl /).textContent).toBe(
      `curl -H 'x-api-key: ${secret}' http://localhost:3000/api/v1/health`,
    );
    await user.click(within(panel).getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith(secret);
    expect(within(panel).getByRole('status').textContent).toBe('Copied to the clipboard.');

    // The list gains the key, without its secret; the form is ready for another.
    const list = screen.getByRole('region', { name: 'Your keys' });
    expect(
      within(list)
        .getAllByRole('heading', { level: 3 })
        .map((h) => h.textContent),
    ).toEqual(['laptop', 'older']);
    expect(list.textContent).not.toContain(secret);
    expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'Name' }).value).toBe('');

    await user.click(within(panel).getByRole('button', { name: 'Done' }));
    expect(document.body.textContent).not.toContain(secret);

    // A reload is a new mount: nothing kept the key.
    view.unmount();
    renderKeys(api);
    await screen.findByRole('heading', { name: 'older' });
    expect(document.body.textContent).not.toContain(secret);
    expect(window.localStorage.length + window.sessionStorage.length).toBe(0);
  });

  it('selects the key for the keyboard when there is no clipboard', async () => {
    const user = userEvent.setup();
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText: () => Promise.reject(new Error('denied')) },
      configurable: true,
    });
    renderKeys(signedInApi());
    await user.type(await screen.findByRole('textbox', { name: 'Name' }), 'laptop');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    await user.click(await screen.findByRole('button', { name: 'Copy' }));
    expect(await screen.findByText(/press Ctrl\+C/)).toBeTruthy();
    expect(window.getSelection()?.toString()).toBe(secret);
  });

  it("checks the name before sending, and shows the server's field errors in words beside their fields", async () => {
    const user = userEvent.setup();
    const problem = {
      type: 'x/problems/invalid-request',
      title: 'Invalid request',
      status: 400,
      detail: '/name must not contain control characters.',
      errors: [{ pointer: '/name', detail: 'must not contain control characters' }],
    };
    const createKey = vi.fn(() => Promise.reject(new BadRequestError(400, problem, new Headers())));
    renderKeys(signedInApi({ createKey }));
    const name = await screen.findByRole('textbox', { name: 'Name' });
    const messageOf = () =>
      document.getElementById(name.getAttribute('aria-describedby')?.split(' ').at(-1) ?? '')?.textContent;

    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(createKey).not.toHaveBeenCalled();
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(messageOf()).toMatch(/^Enter a name for the key/);

    await user.type(name, 'laptop');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Expires in (days)' }), 'Never');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(createKey).toHaveBeenCalledWith({ name: 'laptop' });
    await waitFor(() => expect(messageOf()).toBe('Name must not contain control characters.'));
    expect(screen.getByRole('alert').textContent).toBe('Check the field marked below.');
    expect(document.body.textContent).not.toContain('/name');
    // What was typed stays, to be corrected.
    expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'Name' }).value).toBe('laptop');
  });
});

describe('who may see the keys screen', () => {
  it('sends a signed-out visitor to sign in, and back here after', async () => {
    renderKeys(fakeApi({ session: () => Promise.resolve(null) }));
    await waitFor(() => expect(window.location.pathname).toBe('/signin'));
    expect(new URLSearchParams(window.location.search).get('next')).toBe('/settings/keys');
  });
});

describe('the lifetime field', () => {
  it('is empty for never, or a whole number of days in range', () => {
    expect(parseLifetime('')).toEqual({ days: undefined });
    expect(parseLifetime(' 90 ')).toEqual({ days: 90 });
    expect(parseLifetime('365')).toEqual({ days: 365 });
    for (const bad of ['0', '366', '1.5', '-3', 'ten', '1e2'])
      expect(parseLifetime(bad), bad).toHaveProperty('problem');
  });
});
