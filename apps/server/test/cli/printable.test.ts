import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/kernel/logger.js';
import { openServices } from '../../src/services.js';
import { cliSandbox, type CliSandbox } from '../support/cli-harness.js';

/**
 * The CLI prints values from the database, files and its own command line to an operator's terminal. Key
 * names written before the contract refused control characters may still hold them, so these rows are
 * seeded through storage, as such rows would be: the CLI must show every one escaped, visibly, and never let
 * one retitle the terminal, erase a line, forge a row or show an active key as revoked.
 */

/** Anything a terminal would act on: C0 but the line feed, DEL, C1, bidirectional controls. */
// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const actedOn = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;

const hostile: Array<[string, string]> = [
  // [name as stored, how the CLI must show it]
  ['\u001b]0;pwned\u0007', '\\x1b]0;pwned\\x07'],
  ['ok\u001b[2K\rkey_fake  rls_XXXXXXXX…  revoked', 'ok\\x1b[2K\\rkey_fake  rls_XXXXXXXX…  revoked'],
  ['line\nkey_forged  rls_… revoked', 'line\\nkey_forged  rls_… revoked'],
  ['\u202edeyovser', '\\u202edeyovser'],
  ['c1\u009b31mred', 'c1\\x9b31mred'],
  ['tab\there', 'tab\\there'],
  ['back\\slash', 'back\\\\slash'],
];

let sandbox: CliSandbox;
beforeAll(async () => {
  sandbox = cliSandbox();
  const services = await openServices(loadConfig(sandbox.env), createLogger('silent'));
  try {
    for (const [name] of hostile) await services.keys.create({ name, ownerId: null, lifetimeMs: null });
  } finally {
    await services.close();
  }
});
afterAll(() => sandbox.remove());

describe('the CLI prints what it did not write escaped', () => {
  it('keys list: one line per key, every name escaped visibly, each key shown as active', async () => {
    const listed = await sandbox.run(['keys', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toMatch(actedOn);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(hostile.length);
    for (const [, shown] of hostile) {
      const line = lines.find((l) => l.includes(`  ${shown}  created `));
      expect(line, shown).toBeDefined();
      expect(line).toMatch(/^key_\S+ {2}rls_\S+… {2}active {3}/);
    }
  });

  it('keys list --json: the names exactly as stored, in JSON a terminal cannot act on', async () => {
    const listed = await sandbox.run(['keys', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toMatch(actedOn);
    const { keys } = JSON.parse(listed.stdout) as { keys: Array<{ name: string }> };
    expect(keys.map((key) => key.name).sort()).toEqual(hostile.map(([name]) => name).sort());
  });

  it('refuses such a name for a new key, by the API’s own rule, and echoes it escaped', async () => {
    const created = await sandbox.run(['keys', 'create', '--name', 'evil\u001b[2K']);
    expect(created.code).toBe(2);
    expect(created.stderr).not.toMatch(actedOn);
    expect(created.stderr).toContain('must not contain control characters: U+001B at character 5');
    const bidi = await sandbox.run(['keys', 'create', '--name', 'yek\u202e']);
    expect(bidi.code).toBe(2);
    expect(bidi.stderr).toContain('bidirectional override');
  });

  it('escapes values from its own command line in messages too', async () => {
    const revoke = await sandbox.run(['keys', 'revoke', 'key_\u001b]0;x\u0007']);
    expect(revoke.code).toBe(1);
    expect(revoke.stderr).toContain('No active key has the id key_\\x1b]0;x\\x07.');
    const user = await sandbox.run(['keys', 'create', '--name', 'ok', '--user', 'mia\u009b@example.com']);
    expect(user.code).toBe(2);
    expect(user.stderr).toContain('got "mia\\x9b@example.com"');
    const command = await sandbox.run(['\u001b[31mred']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "\\x1b[31mred"');
    const option = await sandbox.run(['keys', 'list', '--\u001b[2K']);
    expect(option.code).toBe(2);
    for (const result of [revoke, user, command, option]) expect(result.stderr).not.toMatch(actedOn);
  });
});
