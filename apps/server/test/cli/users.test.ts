import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/kernel/logger.js';
import { openServices } from '../../src/services.js';
import { cliSandbox, type CliSandbox } from '../support/cli-harness.js';

/** `users set-password`, `users delete` and `users sessions` (SPEC §7, issue 18 #5), as `pnpm cli` runs them. */
let sandbox: CliSandbox;
beforeAll(() => {
  sandbox = cliSandbox();
});
afterAll(() => sandbox.remove());

function table(name: string): Array<Record<string, unknown>> {
  const db = new BetterSqlite3(sandbox.databaseFile, { readonly: true });
  try {
    return db.prepare(`select * from ${name}`).all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

/** An account with sessions started from the given user agents and one API key, made through the services. */
async function accountWithSessions(email: string, userAgents: Array<string | null>): Promise<string> {
  const created = await sandbox.run(['users', 'create', '--email', email, '--json'], {
    stdin: 'a long enough password',
  });
  expect(created.code, created.stderr).toBe(0);
  const { id } = JSON.parse(created.stdout) as { id: string };
  const services = await openServices(loadConfig(sandbox.env), createLogger('silent'));
  try {
    for (const userAgent of userAgents) await services.sessions.start(id, userAgent);
    await services.keys.create({ name: 'laptop', ownerId: id, lifetimeMs: null });
  } finally {
    await services.close();
  }
  return id;
}

const sessionsOf = (userId: string) => table('sessions').filter((row) => row.user_id === userId);

describe('cli users', () => {
  it("sessions lists an account's live sessions, values escaped; --end-all ends them all; --json is one object", async () => {
    const id = await accountWithSessions('erin@example.com', ['curl/8.5.0', 'Evil\u202eFox', null]);
    const listed = await sandbox.run(['users', 'sessions', '--email', 'ERIN@example.com', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(1);
    const json = JSON.parse(listed.stdout) as {
      user: { id: string; email: string };
      sessions: Array<{
        id: string;
        created_at: string;
        last_used_at: string;
        expires_at: string;
        user_agent: string | null;
      }>;
    };
    expect(json.user).toMatchObject({ id, email: 'erin@example.com' });
    expect(json.sessions).toHaveLength(3);
    expect(json.sessions.map((session) => session.user_agent).sort()).toEqual(
      ['Evil\u202eFox', 'curl/8.5.0', null].sort(),
    );
    for (const session of json.sessions) {
      expect(Object.keys(session).sort()).toEqual(['created_at', 'expires_at', 'id', 'last_used_at', 'user_agent']);
      expect(session.id).toMatch(/^ses_/);
    }
    // The bidirectional override is escaped in JSON (terminal-safe) and in text.
    expect(listed.stdout).toContain('Evil\\u202eFox');
    const text = await sandbox.run(['users', 'sessions', '--email', 'erin@example.com']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Evil\\u202eFox');
    expect(text.stdout).not.toContain('\u202e');
    expect(text.stdout).toContain('curl/8.5.0');
    expect(text.stdout.trim().split('\n')).toHaveLength(3);

    const ended = await sandbox.run(['users', 'sessions', '--email', 'erin@example.com', '--end-all', '--json']);
    expect(ended.code, ended.stderr).toBe(0);
    expect((JSON.parse(ended.stdout) as { ended: number }).ended).toBe(3);
    expect(sessionsOf(id)).toEqual([]);
    const none = await sandbox.run(['users', 'sessions', '--email', 'erin@example.com']);
    expect(none.stdout).toContain('No live sessions for erin@example.com.');
  });

  it('set-password reads the new password from stdin, follows the rules, and ends every session', async () => {
    const id = await accountWithSessions('frank@example.com', ['curl/8.5.0', 'Firefox']);
    const hashBefore = table('users').find((row) => row.id === id)!.password_hash;
    for (const [password, message] of [
      ['short', 'password: must be at least 10 characters'],
      ['password123', 'password: is among the most common passwords'],
      ['xxxxxxxxxx', 'password: is a short pattern repeated'],
      ['frank@example.com', 'password: must not be the email address'],
    ] as const) {
      const refused = await sandbox.run(['users', 'set-password', '--email', 'frank@example.com'], { stdin: password });
      expect(refused.code, password).toBe(2);
      expect(refused.stderr).toContain(message);
    }
    expect(sessionsOf(id)).toHaveLength(2);
    const newPassword = 'a new long pass phrase';
    const set = await sandbox.run(['users', 'set-password', '--email', 'frank@example.com', '--json'], {
      stdin: `${newPassword}\n`,
    });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      id,
      email: 'frank@example.com',
      password_set: true,
      sessions_ended: 2,
    });
    expect(set.stdout + set.stderr).not.toContain(newPassword);
    expect(sessionsOf(id)).toEqual([]);
    const row = table('users').find((r) => r.id === id)!;
    expect(row.password_hash).not.toBe(hashBefore);
    expect(JSON.stringify(row)).not.toContain(newPassword);
    // The new password is the account's now.
    const services = await openServices(loadConfig(sandbox.env), createLogger('silent'));
    try {
      expect(await services.accounts.login('frank@example.com', newPassword, null)).toBeDefined();
    } finally {
      await services.close();
    }
  });

  it('delete removes the account with its sessions and keys', async () => {
    const id = await accountWithSessions('grace@example.com', ['curl/8.5.0']);
    const deleted = await sandbox.run(['users', 'delete', '--email', 'grace@example.com', '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ id, deleted: true, sessions_ended: 1, keys_deleted: 1 });
    expect(table('users').filter((row) => row.id === id)).toEqual([]);
    expect(sessionsOf(id)).toEqual([]);
    expect(table('api_keys').filter((row) => row.owner_id === id)).toEqual([]);
    const text = await sandbox.run(['users', 'delete', '--email', 'grace@example.com']);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('no user with the email grace@example.com');
  });

  it('says what is missing or wrong, like the other commands', async () => {
    for (const [args, message] of [
      [['users', 'delete'], 'users delete needs --email E'],
      [['users', 'sessions'], 'users sessions needs --email E'],
      [['users', 'set-password', '--email', 'not-an-email'], '--email takes an email address'],
      [['users', 'rename'], 'users takes create, set-password, delete or sessions'],
    ] as const) {
      const result = await sandbox.run([...args], { stdin: 'a long enough password' });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });
});
