import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/harness.js';

/**
 * The served document through the tools strangers point at it: Redocly's linter (its recommended rules) and
 * Spectral with the OWASP API security ruleset, as configured in the repository's `.spectral.yaml`. Both run
 * from their command lines, offline. Errors fail the test; warnings are listed below with why each is
 * accepted, so a new kind of warning fails too and gets looked at.
 */

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const repoRoot = path.resolve(serverRoot, '../..');
const bin = (name: string) => path.join(serverRoot, 'node_modules', '.bin', name);

// Redocly asks npm for newer versions and sends usage data unless told not to; this test is offline.
const offline = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

function run(command: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: offline, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

let folder: string;
let file: string;

beforeAll(async () => {
  // An https PUBLIC_URL, as in production: the document's server URL is PUBLIC_URL, and OWASP rightly wants https.
  const server = await startTestServer({ releases: 'none', config: { publicUrl: 'https://releases.test' } });
  try {
    const response = await server.get('/api/v1/openapi.json');
    folder = mkdtempSync(path.join(tmpdir(), 'releases-openapi-lint-'));
    file = path.join(folder, 'openapi.json');
    writeFileSync(file, await response.text());
  } finally {
    await server.close();
  }
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface RedoclyProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

interface SpectralResult {
  code: string;
  severity: number;
  message: string;
  path: string[];
}

/** Warnings we have read and accept, by rule, with the reason. */
const acceptedRedoclyWarnings: Record<string, string> = {
  'operation-4xx-response':
    'The probes (/livez, /readyz) take no input, no credential and are never rate limited: they cannot answer a 4xx.',
};
const acceptedSpectralWarnings: Record<string, string> = {
  'owasp:api4:2023-string-restricted':
    'Free text (titles, names, problem details, HTML pages) and opaque values (cursors) have no pattern to state; every string is bounded, which string-limit (an error) checks.',
  'owasp:api8:2023-define-error-responses-401':
    'Operations that read no credential (signing up, the documents, the probes) cannot answer 401, so they do not say they can.',
  'owasp:api8:2023-define-error-validation':
    'Operations with nothing to validate (no parameters, no body) cannot answer 400 themselves; anything else is their `default` problem.',
  'owasp:api2:2023-read-restricted':
    'The OpenAPI document, the reference page, the problem pages and the probes are public by design.',
  'owasp:api3:2023-no-additionalProperties': 'RFC 9457 lets problem documents carry extension members.',
};

describe('the served OpenAPI document passes strangers’ linters', () => {
  it('Redocly lint (recommended): no errors', async () => {
    const { stdout, stderr } = await run(bin('redocly'), ['lint', file, '--format=json'], folder);
    const report = JSON.parse(stdout || '{}') as { problems?: RedoclyProblem[] };
    expect(report.problems, stderr).toBeDefined();
    const describe = (p: RedoclyProblem) => `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`;
    expect(report.problems!.filter((p) => p.severity === 'error').map(describe)).toEqual([]);
    const unexpected = report.problems!.filter((p) => p.severity === 'warn' && !(p.ruleId in acceptedRedoclyWarnings));
    expect(unexpected.map(describe)).toEqual([]);
  });

  it('Spectral with the OWASP ruleset (.spectral.yaml): no errors', async () => {
    const ruleset = path.join(repoRoot, '.spectral.yaml');
    const { stdout, stderr } = await run(bin('spectral'), ['lint', file, '-r', ruleset, '-f', 'json', '-q'], folder);
    const results = JSON.parse(stdout || 'null') as SpectralResult[] | null;
    expect(results, stderr).not.toBeNull();
    const describe = (r: SpectralResult) => `${r.code} at ${r.path.join('.')}: ${r.message}`;
    // Spectral severities: 0 error, 1 warning, 2 information, 3 hint.
    expect(results!.filter((r) => r.severity === 0).map(describe)).toEqual([]);
    const unexpected = results!.filter((r) => r.severity === 1 && !(r.code in acceptedSpectralWarnings));
    expect(unexpected.map(describe)).toEqual([]);
  });
});
