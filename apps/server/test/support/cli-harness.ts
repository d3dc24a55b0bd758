import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serverRoot } from '../../src/config.js';

/** The built CLI, as `pnpm cli` runs it. `test/support/fresh-build.ts` (vitest global setup) keeps it current. */
export const cliEntry = path.join(serverRoot, 'dist', 'cli', 'main.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliSandbox {
  folder: string;
  databaseFile: string;
  env: NodeJS.ProcessEnv;
  /** Runs the CLI against this sandbox's database; `stdin` is piped in (and closed) when given. */
  run(args: string[], options?: { stdin?: string; env?: NodeJS.ProcessEnv }): Promise<CliResult>;
  remove(): void;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** A temporary folder with its own SQLite database for CLI runs. */
export function cliSandbox(): CliSandbox {
  const folder = mkdtempSync(path.join(tmpdir(), 'releases-cli-'));
  const databaseFile = path.join(folder, 'db.sqlite');
  // A cheap password hash (`PASSWORD_HASH_COST`): tests must not depend on how fast the machine is.
  const env = {
    ...process.env,
    DATABASE_URL: `file:${databaseFile}`,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    PASSWORD_HASH_COST: '10',
  };
  return {
    folder,
    databaseFile,
    env,
    run: (args, options = {}) => runCli(args, { ...env, ...options.env }, options.stdin),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
