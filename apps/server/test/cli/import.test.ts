import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSandbox, type CliSandbox } from '../support/cli-harness.js';
import { sampleReleases } from '../support/harness.js';

let sandbox: CliSandbox;
let folder: string;
const pnpmCli = (...args: string[]) => sandbox.run(args);

function count(table: string): number {
  const db = new BetterSqlite3(path.join(folder, 'db.sqlite'), { readonly: true });
  try {
    return (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

beforeAll(() => {
  sandbox = cliSandbox();
  folder = sandbox.folder;
});
afterAll(() => sandbox.remove());

describe('cli import', () => {
  it('imports a JSON array, then upserts by id', async () => {
    const releases = (await sampleReleases()).slice(0, 10);
    const file = path.join(folder, 'ten.json');
    writeFileSync(file, JSON.stringify(releases));
    const first = await pnpmCli('import', file, '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ inserted: 10, updated: 0 });

    const changed = releases.slice(0, 3).map((r) => ({ ...r, title: `${r.title} (remaster)` }));
    const jsonl = path.join(folder, 'changed.jsonl');
    writeFileSync(jsonl, changed.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const second = await pnpmCli('import', jsonl, '--json');
    expect(JSON.parse(second.stdout)).toEqual({ inserted: 0, updated: 3 });
    expect(count('releases')).toBe(10);
  });

  it('changes nothing when one row is bad, and names the row', async () => {
    const before = count('releases');
    const tagsBefore = count('release_tags');
    const releases = (await sampleReleases()).slice(20, 30).map((r) => ({ ...r }));
    (releases[6] as Record<string, unknown>).release_date = '2021-02-30';
    const file = path.join(folder, 'bad.json');
    writeFileSync(file, JSON.stringify(releases));
    const result = await pnpmCli('import', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('row 7: /release_date must be a real calendar date');
    expect(result.stderr).toContain('Nothing was imported');
    expect(count('releases')).toBe(before);
    expect(count('release_tags')).toBe(tagsBefore);
  });

  it('refuses text no database can store (a lone surrogate), naming the field', async () => {
    const release = { ...(await sampleReleases())[41]!, title: 'Broken \ud800 title' };
    const file = path.join(folder, 'surrogate.json');
    // JSON.stringify writes the lone surrogate as the escape `\ud800`, as any JSON producer may.
    writeFileSync(file, JSON.stringify([release]));
    const result = await pnpmCli('import', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('row 1: /title must be Unicode text (it holds a lone surrogate)');
  });

  it.each([
    ['a javascript: link', { links: [{ site: 'evil', url: 'javascript:alert(1)' }] }, '/links/0/url'],
    ['a data: cover', { cover_url: 'data:text/html,<script>alert(1)</script>' }, '/cover_url'],
    ['an ftp: link', { links: [{ site: 'old', url: 'ftp://files.example.com/a' }] }, '/links/0/url'],
  ])('refuses %s: links and covers are http: or https: only (issue 30)', async (_name, change, pointer) => {
    const release = { ...(await sampleReleases())[42]!, ...change };
    const file = path.join(folder, 'scheme.json');
    writeFileSync(file, JSON.stringify([release]));
    const result = await pnpmCli('import', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`row 1: ${pointer} must be an http: or https: URL`);
  });

  it('reports bad JSON Lines by line number', async () => {
    const file = path.join(folder, 'bad.jsonl');
    const good = JSON.stringify((await sampleReleases())[40]);
    writeFileSync(file, `${good}\n{"id": "rel_broken",\n${good}\n`);
    const result = await pnpmCli('import', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('row 2: is not valid JSON');
  });

  it('keys create --json prints one object with the key; list and revoke work', async () => {
    const created = await pnpmCli('keys', 'create', '--name', 'ci', '--expires-in', '30d', '--json');
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; name: string; expires_at: string };
    expect(key.key).toMatch(/^rls_[0-9A-Za-z]{38}$/);
    expect(key.name).toBe('ci');
    const listed = JSON.parse((await pnpmCli('keys', 'list', '--json')).stdout) as {
      keys: Array<Record<string, unknown>>;
    };
    expect(listed.keys.map((k) => k.id)).toContain(key.id);
    expect(JSON.stringify(listed)).not.toContain(key.key);
    expect((await pnpmCli('keys', 'revoke', key.id)).code).toBe(0);
    expect((await pnpmCli('keys', 'revoke', key.id)).code).toBe(1);
  });

  it('seed --synthetic is deterministic', async () => {
    const seeded = await pnpmCli('seed', '--synthetic', '300', '--seed', '9', '--json');
    expect(JSON.parse(seeded.stdout)).toEqual({ loaded: 300, seed: 9 });
    expect(seeded.stderr).toContain('300/300');
  });

  it('explains usage errors', async () => {
    const result = await pnpmCli('keys', 'create');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('keys create needs --name');
  });
});
