import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/kernel/logger.js';
import { openServices } from '../../src/services.js';
import { cliSandbox, type CliSandbox } from '../support/cli-harness.js';

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

describe('cli users and keys', () => {
  it('users create reads the password from stdin and stores only its hash', async () => {
    const password = 'a long enough password';
    const created = await sandbox.run(['users', 'create', '--email', ' Carol@Example.com ', '--json'], {
      stdin: `${password}\n`,
    });
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout) as { id: string; email: string; created_at: string };
    expect(Object.keys(user).sort()).toEqual(['created_at', 'email', 'id']);
    expect(user.id).toMatch(/^usr_/);
    expect(user.email).toBe('carol@example.com');
    const row = table('users').find((r) => r.id === user.id)!;
    expect(row.password_hash).toMatch(/^\$scrypt\$/);
    expect(JSON.stringify(row)).not.toContain(password);
    // Nothing secret on either stream.
    expect(created.stdout + created.stderr).not.toContain(password);
  });

  it('refuses a taken email, a weak password and a missing --email, without writing', async () => {
    const before = table('users').length;
    const taken = await sandbox.run(['users', 'create', '--email', 'carol@example.com'], {
      stdin: 'another long password',
    });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('already exists');
    const weak = await sandbox.run(['users', 'create', '--email', 'dave@example.com'], { stdin: 'short' });
    expect(weak.code).toBe(2);
    expect(weak.stderr).toContain('password: must be at least 10 characters');
    const same = await sandbox.run(['users', 'create', '--email', 'dave@example.com'], { stdin: 'dave@example.com' });
    expect(same.stderr).toContain('password: must not be the email address');
    const missing = await sandbox.run(['users', 'create'], { stdin: 'a long enough password' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('users create needs --email');
    expect(table('users')).toHaveLength(before);
  });

  it('keys create --user makes a key owned by that account, --json with the key once', async () => {
    const created = await sandbox.run(['keys', 'create', '--name', 'ci', '--user', 'CAROL@example.com', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; owner_id: string; start: string };
    const carol = table('users').find((r) => r.email === 'carol@example.com')!;
    expect(key.owner_id).toBe(carol.id);
    expect(key.start).toBe(key.key.slice(0, 12));
    const row = table('api_keys').find((r) => r.id === key.id)!;
    expect(row.key_hash).toBe(createHash('sha256').update(key.key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(key.key);

    const unknown = await sandbox.run(['keys', 'create', '--name', 'x', '--user', 'nobody@example.com']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no user with the email nobody@example.com');
  });

  it('keys create --user stops at 25 active keys, like the settings screen', async () => {
    // 23 more keys through the storage (each CLI run is a process start); the CLI makes the 25th and refuses the 26th.
    const carol = table('users').find((r) => r.email === 'carol@example.com')!;
    const services = await openServices(loadConfig(sandbox.env), createLogger('silent'));
    try {
      for (let i = 0; i < 23; i++) {
        await services.keys.create({ name: `k${i}`, ownerId: String(carol.id), lifetimeMs: null });
      }
    } finally {
      await services.close();
    }
    const owned = () => table('api_keys').filter((r) => r.owner_id === carol.id && r.revoked_at === null).length;
    expect(owned()).toBe(24);
    expect((await sandbox.run(['keys', 'create', '--name', 'the 25th', '--user', 'carol@example.com'])).code).toBe(0);
    const refused = await sandbox.run(['keys', 'create', '--name', 'one too many', '--user', 'carol@example.com']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('25 active keys');
    expect(owned()).toBe(25);
    // Keys without an owner (the operator's) are not bounded.
    expect((await sandbox.run(['keys', 'create', '--name', 'operator'])).code).toBe(0);
  });

  it('--json prints exactly one JSON document on stdout for every command', async () => {
    for (const args of [
      ['migrate', '--json'],
      ['keys', 'list', '--json'],
      ['seed', '--synthetic', '5', '--json'],
    ]) {
      const result = await sandbox.run(args);
      expect(result.code, result.stderr).toBe(0);
      expect(() => JSON.parse(result.stdout) as unknown, `${args.join(' ')}: ${result.stdout}`).not.toThrow();
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
    }
  });
});
