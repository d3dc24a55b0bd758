import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { PasswordHasher } from './passwords.js';

describe('password hashing', () => {
  it('uses SPEC §4’s cost unless told otherwise, and production refuses a lower one', () => {
    expect(loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'file::memory:' }).passwordHashCost).toBe(17);
    expect(
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'file::memory:', PASSWORD_HASH_COST: '10' }).passwordHashCost,
    ).toBe(10);
    expect(() =>
      loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'file::memory:', PASSWORD_HASH_COST: '10' }),
    ).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'file::memory:', PASSWORD_HASH_COST: '9' })).toThrow(
      /PASSWORD_HASH_COST/,
    );
  });

  it('writes the cost into each hash, so a hash made at another cost still verifies', async () => {
    const production = new PasswordHasher(17);
    const stored = await production.hash('correct horse battery staple');
    expect(stored).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    const cheap = new PasswordHasher(10);
    expect(await cheap.verify('correct horse battery staple', stored)).toBe(true);
    expect(await cheap.verify('correct horse battery stapler', stored)).toBe(false);
    expect(await cheap.verify('anything', undefined)).toBe(false);
  });
});
