import { execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { launchChromium } from '@releases/test-chromium';
import {
  bunBinary,
  denoBinary,
  nodeBinary,
  nodeMajors,
  workerdBinary,
  type NodeMajor,
  type RuntimeBinary,
} from '@releases/test-runtimes';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JourneyConfig, JourneyReport } from './runtimes/journey.js';
import { startFaultServer, type FaultServer } from './runtimes/fault-server.js';
import { freePort, startLiveServer, type LiveServer } from './server-harness.js';

/**
 * The runtime matrix (SPEC §8, issue 19 #1): the packed tarball, installed alone with npm into an empty
 * project, runs one journey (test/runtimes/journey.ts) on Node 18, 20, 22 and 24, Deno, Bun, workerd (with
 * and without nodejs_compat) and Chromium, against the real server and a fault server (refused, reset, cut
 * mid-body). Every runtime is a binary from the lockfile (tooling/runtimes, tooling/chromium): nothing is
 * downloaded here, and a runtime that cannot start fails its test rather than being skipped.
 */
const run = promisify(execFile);
const testDir = path.dirname(fileURLToPath(import.meta.url));
const packageRoot = path.resolve(testDir, '..');
const { version } = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string };

let project: string;
let server: LiveServer;
let faults: FaultServer;
let apiKey: string;
let refusedBaseUrl: string;
const matrixStarted = Date.now();

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'releases-matrix-'));
  await run('pnpm', ['pack', '--pack-destination', project], { cwd: packageRoot });
  const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'))!;
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'matrix', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', `./${tarball}`], {
    cwd: project,
  });
  // The journey, as a user's code: compiled against the installed package, never the workspace's.
  mkdirSync(path.join(project, 'src'));
  for (const file of ['journey.ts', 'journey-cli.ts', 'journey-worker.ts', 'journey-page.ts']) {
    copyFileSync(path.join(testDir, 'runtimes', file), path.join(project, 'src', file));
  }
  const common = { absWorkingDir: project, bundle: true, format: 'esm', target: 'es2022', logLevel: 'error' } as const;
  await Promise.all([
    // Node, Deno and Bun import @releases/client from node_modules, through its exports map.
    build({
      ...common,
      entryPoints: ['src/journey-cli.ts'],
      outfile: 'journey-cli.mjs',
      platform: 'neutral',
      external: ['@releases/client'],
    }),
    // Workers are bundled (as wrangler does, with its conditions); the page as a browser bundler would.
    build({
      ...common,
      entryPoints: ['src/journey-worker.ts'],
      outfile: 'worker.mjs',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['module', 'main'],
    }),
    build({ ...common, entryPoints: ['src/journey-page.ts'], outfile: 'page.js', platform: 'browser' }),
  ]);
  [server, faults] = await Promise.all([startLiveServer(), startFaultServer()]);
  apiKey = (await server.createKey()).key;
  refusedBaseUrl = `http://127.0.0.1:${await freePort()}`;
});

afterAll(async () => {
  console.info(`runtime matrix: ${((Date.now() - matrixStarted) / 1000).toFixed(1)} s in all, set-up included`);
  await Promise.all([server?.stop(), faults?.close()]);
  rmSync(project, { recursive: true, force: true });
});

function configFor(runtime: string, environment: JourneyConfig['environment']): JourneyConfig {
  return {
    runtime,
    baseUrl: server.baseUrl,
    apiKey,
    faultBaseUrl: `${faults.origin}/${runtime}`,
    refusedBaseUrl,
    email: `matrix.${runtime}.${Date.now()}@example.com`,
    password: `a passphrase for ${runtime} in the matrix`,
    environment,
  };
}

/** RELEASES_* as a careless shell sets them: with spaces and a newline, which the SDK trims. */
function journeyEnvironment(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    NO_COLOR: '1',
    RELEASES_API_KEY: `  ${apiKey}\n`,
    RELEASES_BASE_URL: ` ${server.baseUrl} `,
    RELEASES_LOG: ' Debug ',
  };
}

/** Runs a command in the project; its stdout and stderr, or an error carrying both. */
function execute(command: string, args: string[], timeoutMs = 60_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: project, env: journeyEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(`${path.basename(command)} ${args[0] ?? ''} exited with ${code ?? signal}:\n${stderr}\n${stdout}`),
        );
    });
  });
}

/** The report a journey script printed as its last line. */
function lastLine(stdout: string): JourneyReport {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as JourneyReport;
}

/** What every runtime must see. Only the environment differs, and what a runtime names itself. */
function expected(environment: Record<string, unknown>) {
  const failed = (name: string, extra: Record<string, unknown> = {}) => ({ name, releasesError: true, ...extra });
  return {
    version,
    health: 'OK',
    firstPage: { size: 5, hasNextPage: true, secondPageDiffers: true },
    everyMikuRelease: { matchesFacets: true, unique: true, moreThanOnePage: true },
    oneRelease: true,
    notFound: failed('NotFoundError', { status: 404, kind: 'not-found' }),
    badRequest: failed('BadRequestError', { status: 400, kind: 'invalid-request' }),
    withResponse: { requestIdMatches: true, nextLink: true },
    asResponse: { status: 200, success: true },
    withOptions: { derived: 0, original: 2, health: 'OK' },
    debugLinePerResponse: true,
    account: {
      keyListed: true,
      keyWorks: 'OK',
      revoked: true,
      afterLogout: failed('AuthenticationError', { status: 401, kind: 'unauthorized' }),
    },
    environment,
    faults: {
      refused: failed('ConnectionError', { retries: 2 }),
      reset: failed('ConnectionError'),
      cut: failed('ConnectionError'),
      resetPost: failed('ConnectionError'),
      empty: failed('ResponseValidationError'),
      noContent: failed('ResponseValidationError'),
      serverError: failed('InternalServerError', { status: 500, kind: 'internal-error' }),
      identified: true,
    },
  };
}

/** The journey's report, then what the fault server counted: idempotent calls tried 3 times, a POST once. */
function check(runtime: string, report: JourneyReport, environment: Record<string, unknown>, userAgent: RegExp) {
  expect(report).toEqual(expected(environment));
  const attempts = Object.fromEntries(
    (['reset', 'cut', 'reset-post', 'empty', 'no-content', 'error-500', 'echo'] as const).map((mode) => [
      mode,
      faults.count(runtime, mode),
    ]),
  );
  expect(attempts).toEqual({ reset: 3, cut: 3, 'reset-post': 1, empty: 1, 'no-content': 1, 'error-500': 3, echo: 1 });
  expect(faults.echoed(runtime)?.['user-agent']).toMatch(userAgent);
}

/** A runtime's binary, or the reason there is none (the test then fails with it). */
function find(binary: () => RuntimeBinary): { title: string; binary: () => RuntimeBinary } {
  try {
    const found = binary();
    return { title: `${found.version} (${found.packageName})`, binary: () => found };
  } catch {
    return { title: 'not installed', binary };
  }
}

const readable = () => ({ baseUrl: server.baseUrl, health: 'OK', debugFromRELEASES_LOG: true });
const defaults = { baseUrl: 'http://localhost:3000' };

describe('the packed SDK in every runtime of SPEC §8: the same journey, the same failures', () => {
  const nodes = nodeMajors.map((major: NodeMajor) => ({ major, ...find(() => nodeBinary(major)) }));

  it.each(nodes)('Node.js $major: $title, ESM and CommonJS', async ({ major, binary }) => {
    const node = binary();
    const started = Date.now();
    const runtime = `node${major}`;
    const { stdout } = await execute(node.path, ['journey-cli.mjs', JSON.stringify(configFor(runtime, 'readable'))]);
    check(runtime, lastLine(stdout), readable(), new RegExp(`^releases-client/${version} node/${node.version}$`));
    const cjs = await execute(node.path, [
      '-e',
      `const sdk = require('@releases/client');
console.log(JSON.stringify({ client: typeof sdk.ReleasesClient, family: new sdk.TimeoutError('t') instanceof sdk.ConnectionError, version: sdk.VERSION }));`,
    ]);
    expect(JSON.parse(cjs.stdout)).toEqual({ client: 'function', family: true, version });
    console.info(`${runtime} (${node.version}): ${Date.now() - started} ms`);
  });

  it("the package's engines claim what this matrix runs: from its oldest Node.js on", () => {
    const oldest = nodeBinary(nodeMajors[0]).version.split('.');
    const installed = JSON.parse(
      readFileSync(path.join(project, 'node_modules/@releases/client/package.json'), 'utf8'),
    ) as { engines: { node: string } };
    expect(installed.engines.node).toBe(`>=${oldest[0]}.${oldest[1]}`);
  });

  const deno = find(denoBinary);
  it(`Deno ${deno.title}, without permission to read the environment`, async () => {
    const binary = deno.binary();
    const started = Date.now();
    // --allow-net for loopback only, and no --allow-env: the SDK must not crash reading RELEASES_*.
    const { stdout } = await execute(binary.path, [
      'run',
      '--allow-net=127.0.0.1',
      '--no-prompt',
      'journey-cli.mjs',
      JSON.stringify(configFor('deno', 'unreadable')),
    ]);
    check('deno', lastLine(stdout), defaults, new RegExp(`^releases-client/${version} deno/${binary.version}$`));
    console.info(`deno (${binary.version}): ${Date.now() - started} ms`);
  });

  const bun = find(bunBinary);
  it(`Bun ${bun.title}`, async () => {
    const binary = bun.binary();
    const started = Date.now();
    const { stdout } = await execute(binary.path, [
      '--no-install',
      'journey-cli.mjs',
      JSON.stringify(configFor('bun', 'readable')),
    ]);
    check('bun', lastLine(stdout), readable(), new RegExp(`^releases-client/${version} bun/${binary.version}$`));
    console.info(`bun (${binary.version}): ${Date.now() - started} ms`);
  });

  const workerd = find(workerdBinary);
  it(`workerd ${workerd.title} (Cloudflare Workers), with and without nodejs_compat`, async () => {
    const binary = workerd.binary();
    const started = Date.now();
    const ports = await serveWorkers(binary);
    try {
      for (const [runtime, port] of ports) {
        const response = await fetch(`http://127.0.0.1:${port}/`, {
          method: 'POST',
          body: JSON.stringify(configFor(runtime, 'unreadable')),
        });
        const text = await response.text();
        expect(response.status, text).toBe(200);
        check(runtime, JSON.parse(text) as JourneyReport, defaults, new RegExp(`^releases-client/${version} workerd$`));
      }
    } finally {
      await ports.stop();
    }
    console.info(`workerd (${binary.version}): ${Date.now() - started} ms for both`);
  });

  it('Chromium (see the line above for which), the page on the API origin', async () => {
    const started = Date.now();
    const browser = await launchChromium();
    try {
      // The page comes from request interception, so Chromium cannot tell it is on loopback and would refuse
      // it the fault server's loopback port (Local Network Access); a page really served there has that right.
      const context = await browser.newContext({ permissions: ['local-network-access'] });
      const page = await context.newPage();
      await page.route(`${server.baseUrl}/__matrix/**`, async (route) => {
        const file = new URL(route.request().url()).pathname.replace('/__matrix/', '');
        if (file === 'page.html') {
          return route.fulfill({
            contentType: 'text/html',
            body: '<!doctype html><meta charset="utf-8"><title>matrix</title><script type="module" src="./page.js"></script>',
          });
        }
        if (file === 'page.js')
          return route.fulfill({ contentType: 'text/javascript', path: path.join(project, 'page.js') });
        return route.fulfill({ status: 404, body: '' });
      });
      await page.goto(`${server.baseUrl}/__matrix/page.html`);
      await page.waitForFunction(() => 'runJourney' in globalThis);
      const report = await page.evaluate(
        (config) =>
          (globalThis as unknown as { runJourney: (c: JourneyConfig) => Promise<JourneyReport> }).runJourney(config),
        configFor('chromium', 'unreadable'),
      );
      // A page's default base URL is its own origin; a browser sends no SDK header (it would need a preflight).
      check('chromium', report, { baseUrl: server.baseUrl }, /HeadlessChrome|Chrome\//);
      expect(faults.echoed('chromium')?.['x-releases-client']).toBeUndefined();
    } finally {
      await browser.close();
    }
    console.info(`chromium: ${Date.now() - started} ms`);
  });
});

/**
 * workerd serving the journey worker twice, plain and with nodejs_compat, on loopback ports it picks and
 * reports on its control pipe. Its outbound network is loopback only.
 */
async function serveWorkers(binary: RuntimeBinary): Promise<Map<string, number> & { stop(): Promise<void> }> {
  const worker = (flags: string) => `(
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = [${flags}],
  globalOutbound = "loopback",
)`;
  writeFileSync(
    path.join(project, 'matrix.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "workerd", worker = .plain),
    (name = "workerd-compat", worker = .compat),
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [
    (name = "workerd", address = "127.0.0.1:0", http = (), service = "workerd"),
    (name = "workerd-compat", address = "127.0.0.1:0", http = (), service = "workerd-compat"),
  ],
);
const plain :Workerd.Worker = ${worker('')};
const compat :Workerd.Worker = ${worker('"nodejs_compat"')};
`,
  );
  if (!existsSync(path.join(project, 'worker.mjs'))) throw new Error('the worker bundle is missing');
  const child = spawn(binary.path, ['serve', 'matrix.capnp', '--control-fd=3'], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ports = new Map<string, number>();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`workerd did not listen within 20 s:\n${output}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`workerd exited with ${code}:\n${output}`)));
    let control = '';
    (child.stdio[3] as Readable).on('data', (chunk: Buffer) => {
      control += chunk.toString();
      const lines = control.split('\n');
      control = lines.pop() ?? ''; // a line still being written
      for (const line of lines.filter((text) => text.trim() !== '')) {
        const event = JSON.parse(line) as { event?: string; socket?: string; port?: number };
        if (event.event === 'listen' && event.socket && event.port) ports.set(event.socket, event.port);
      }
      if (ports.size === 2) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return Object.assign(ports, {
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  });
}
