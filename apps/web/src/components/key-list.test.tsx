import { NotFoundError } from '@releases/client';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiKey } from '../../test/fake-api.js';
import type { ApiKey } from '../api.js';
import { KeyList, keyStatus } from './key-list.js';

const item = (name: string) => screen.getByRole('heading', { name }).closest('li') as HTMLElement;

describe('the key list', () => {
  it('shows each key with its name, start, created, last used, expires and status', () => {
    const keys = [
      apiKey(1, { name: 'laptop', last_used_at: '2024-03-02T09:30:00.000Z', expires_at: '2999-01-01T00:00:00.000Z' }),
      apiKey(2, { name: 'old ci', revoked_at: '2024-03-03T00:00:00.000Z' }),
      apiKey(3, { name: 'expired', expires_at: '2000-01-01T00:00:00.000Z' }),
    ];
    render(<KeyList keys={keys} onRevoke={() => Promise.resolve()} />);

    expect(screen.getAllByRole('listitem')).toHaveLength(3);
    const laptop = item('laptop');
    const facts = Object.fromEntries(
      within(laptop)
        .getAllByRole('term')
        .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
    );
    expect(Object.keys(facts)).toEqual(['Start', 'Created', 'Last used', 'Expires', 'Status']);
    expect(facts.Start).toBe('rls_Abcd1231…');
    expect(facts.Created).toMatch(/2024/);
    expect(facts['Last used']).toMatch(/2024/);
    expect(facts.Expires).toMatch(/2999/);
    expect(facts.Status).toBe('Active');
    expect(within(laptop).getAllByText(/2024/, { selector: 'time' })[0]?.getAttribute('datetime')).toBe(
      '2024-03-01T10:00:00.000Z',
    );

    expect(item('old ci').textContent).toContain('Revoked');
    expect(item('expired').textContent).toContain('Expired');
    // Only an active key can be revoked.
    expect(within(laptop).getByRole('button', { name: 'Revoke' })).toBeTruthy();
    expect(within(item('old ci')).queryByRole('button')).toBeNull();
    expect(within(item('expired')).queryByRole('button')).toBeNull();
    expect(screen.getAllByText('Never').length).toBeGreaterThan(0);
  });

  it('says so when there are no keys', () => {
    render(<KeyList keys={[]} onRevoke={() => Promise.resolve()} />);
    expect(screen.getByText('You have no API keys yet.')).toBeTruthy();
  });

  it('asks before revoking: Cancel revokes nothing, the Revoke in the dialog does', async () => {
    const user = userEvent.setup();
    const onRevoke = vi.fn<(key: ApiKey) => Promise<void>>(() => Promise.resolve());
    const key = apiKey(1, { name: 'laptop' });
    render(<KeyList keys={[key]} onRevoke={onRevoke} />);

    await user.click(screen.getByRole('button', { name: 'Revoke' }));
    const dialog = screen.getByRole('dialog', { name: 'Revoke this key?' });
    expect(dialog.textContent).toContain('laptop');
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(onRevoke).not.toHaveBeenCalled();
    expect(screen.queryByRole('dialog')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Revoke' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Revoke' }));
    expect(onRevoke).toHaveBeenCalledWith(key);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.getByRole('status').textContent).toBe('The key “laptop” is revoked.');
  });

  it("keeps the dialog open with the problem's detail when revoking fails", async () => {
    const user = userEvent.setup();
    const problem = {
      type: 'x/problems/not-found',
      title: 'Not found',
      status: 404,
      detail: 'You have no API key with the id key_test1.',
    };
    const onRevoke = () => Promise.reject(new NotFoundError(404, problem, new Headers()));
    render(<KeyList keys={[apiKey(1)]} onRevoke={onRevoke} />);
    await user.click(screen.getByRole('button', { name: 'Revoke' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Revoke' }));
    expect((await within(screen.getByRole('dialog')).findByRole('alert')).textContent).toContain(problem.detail);
  });
});

describe('key status', () => {
  it('is revoked, else expired at its expiry, else active', () => {
    const now = Date.parse('2024-06-01T00:00:00.000Z');
    expect(keyStatus(apiKey(1), now)).toBe('active');
    expect(keyStatus(apiKey(1, { expires_at: '2024-06-01T00:00:00.000Z' }), now)).toBe('expired');
    expect(keyStatus(apiKey(1, { expires_at: '2024-06-02T00:00:00.000Z' }), now)).toBe('active');
    expect(
      keyStatus(apiKey(1, { expires_at: '2024-06-02T00:00:00.000Z', revoked_at: '2024-05-01T00:00:00.000Z' }), now),
    ).toBe('revoked');
  });
});
