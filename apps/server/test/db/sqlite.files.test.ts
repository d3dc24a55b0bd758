import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/db/index.js';

const folder = mkdtempSync(path.join(tmpdir(), 'releases-files-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function mode(file: string): string {
  return (statSync(file).mode & 0o777).toString(8);
}

describe('SQLite files hold the cursor secret and credential hashes', () => {
  it('are readable by their owner only: the database, -wal and -shm 0600, a folder we create 0700', async () => {
    const dataFolder = path.join(folder, 'data', 'nested');
    const file = path.join(dataFolder, 'releases.db');
    const storage = await openStorage(`file:${file}`);
    try {
      await storage.migrate();
      await storage.secrets.serverSecret('cursor');
      // A read on the second (read-only) connection, while the writer keeps the WAL open.
      await storage.catalogue.countReleases();
      await storage.catalogue.listReleases({
        filters: { vocaloid_banks: [], genres: [], languages: [] },
        sort: '-release_date',
        limit: 1,
        after: undefined,
      });
      expect(existsSync(`${file}-wal`)).toBe(true);
      expect(existsSync(`${file}-shm`)).toBe(true);
      expect({ db: mode(file), wal: mode(`${file}-wal`), shm: mode(`${file}-shm`) }).toEqual({
        db: '600',
        wal: '600',
        shm: '600',
      });
      expect(mode(dataFolder)).toBe('700');
      expect(mode(path.join(folder, 'data'))).toBe('700');
    } finally {
      await storage.close();
    }
  });
});
