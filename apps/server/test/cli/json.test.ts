import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { serverRoot } from '../../src/config.js';
import { sampleReleases } from '../support/harness.js';

/**
 * SPEC §7: with --json, a command prints one JSON object on stdout. Run exactly as the README says, through
 * the root script (`pnpm --silent cli ...`, which builds first): nothing from pnpm or turbo may reach stdout.
 */
const repositoryRoot = path.resolve(serverRoot, '..', '..');
const folder = mkdtempSync(path.join(tmpdir(), 'releases-cli-json-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)('pnpm', ['--silent', 'cli', ...args], {
      cwd: repositoryRoot,
      env: { ...process.env, DATABASE_URL: `file:${path.join(folder, 'cli.db')}`, FORCE_COLOR: '1' },
    });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '' };
  }
}

function parsed(stdout: string): unknown {
  // One object, one line.
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(stdout) as unknown;
}

describe('pnpm --silent cli <command> --json, from the repository root', () => {
  it('prints nothing but one JSON object on stdout, on success and on failure', { timeout: 180_000 }, async () => {
    const created = await cli(['keys', 'create', '--name', 'ci', '--json']);
    expect(created.code).toBe(0);
    expect(parsed(created.stdout)).toMatchObject({ name: 'ci', key: expect.stringMatching(/^rls_/) as unknown });

    const listed = await cli(['keys', 'list', '--json']);
    expect(listed.code).toBe(0);
    expect(parsed(listed.stdout)).toMatchObject({ keys: [{ name: 'ci' }] });

    const file = path.join(folder, 'releases.json');
    writeFileSync(file, JSON.stringify((await sampleReleases()).slice(0, 3)));
    const imported = await cli(['import', file, '--json']);
    expect(imported.code).toBe(0);
    expect(parsed(imported.stdout)).toEqual({ inserted: 3, updated: 0 });

    const bad = path.join(folder, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ id: 'rel_only_an_id' }]));
    const refused = await cli(['import', bad, '--json']);
    expect(refused.code).toBe(1);
    expect(parsed(refused.stdout)).toMatchObject({ imported: 0, errors: [{ row: 1 }] });
  });
});
