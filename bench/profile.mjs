// `pnpm bench:profile`: where one request's time and allocations go, measured on the built server under load.
//
//   pnpm bench:profile                      the catalogue `pnpm bench` made (100,000 releases on SQLite)
//   pnpm bench:profile -- --rows 1000000    another one it made
//   pnpm bench:profile -- --db postgres     the PostgreSQL one (`pnpm bench -- --db postgres` made it)
//   pnpm bench:profile -- --distinct        the distinct-URL workload (bench/distinct-urls.mjs): first requests,
//                                           each URL once a round, so every request reads the database
//
// The server runs with V8's sampling profiler (--cpu-prof) and its GC trace (--trace-gc-nvp, whose lines say
// how much was allocated since the previous collection), under the same closed-loop load as the benchmark: each
// path kind for a few seconds. The report gives CPU per request by where the code lives (our code, Express,
// ts-rest and zod, Node's HTTP and sockets, logging, GC...) and bytes allocated per request.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { catalogueFolder, postgresCatalogueUrl } from './catalogues.mjs';
import { collectDistinctUrls, interleave } from './distinct-urls.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const rows = Number(option('rows', 100_000));
const seconds = Number(option('duration', 8));
const database = option('db', 'sqlite');
if (!['sqlite', 'postgres'].includes(database)) throw new Error('--db takes sqlite or postgres');
const databaseFile = path.join(catalogueFolder('sqlite', rows), 'releases.db');
if (database === 'sqlite' && !existsSync(databaseFile))
  throw new Error(`no catalogue at ${databaseFile}: run pnpm bench -- --rows ${rows} first`);
const databaseUrl = database === 'sqlite' ? `file:${databaseFile}` : postgresCatalogueUrl(rows);

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
const profileDir = path.join(here, '.work', 'profile');
rmSync(profileDir, { recursive: true, force: true });
mkdirSync(profileDir, { recursive: true });

async function profile(label, paths, credential) {
  const dir = path.join(
    profileDir,
    label
      .split(' ')[0]
      .toLowerCase()
      .replace(/[^a-z]/g, ''),
  );
  const server = spawn(
    process.execPath,
    [
      '--min-semi-space-size=16',
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      '--trace-gc-nvp',
      path.join(root, 'apps/server/dist/main.js'),
    ],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        PORT: String(port),
        HOST: '127.0.0.1',
        RATE_LIMIT_ANONYMOUS: '1000000000',
        RATE_LIMIT_API_KEY: '1000000000',
        RATE_LIMIT_SESSION: '1000000000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let allocated = 0;
  let counting = false;
  let buffered = '';
  server.stdout.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) {
      const match = / allocated=(\d+)/.exec(line);
      if (match && counting) allocated += Number(match[1]);
    }
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break;
    } catch {
      if (i > 300) throw new Error('the server did not start');
    }
    await delay(100);
  }
  const headers = await credential?.(`http://127.0.0.1:${port}`);
  const load = (durationMs) =>
    new Promise((resolve) => {
      const config = {
        baseUrl: `http://127.0.0.1:${port}`,
        paths,
        connections: 8,
        durationMs,
        warmupMs: 0,
        maxRequests: 5_000_000,
        headers,
      };
      const child = spawn(process.execPath, [path.join(here, 'load.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
      child.stdin.end(JSON.stringify(config));
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.on('exit', () => resolve(JSON.parse(out)));
    });
  await load(2_000); // warm: compiled code, caches filled
  counting = true;
  const result = await load(seconds * 1000);
  counting = false;
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  const [file] = readdirSync(dir);
  return {
    label,
    requests: result.requests,
    rps: result.rps,
    allocated,
    cpu: summarise(JSON.parse(readFileSync(path.join(dir, file), 'utf8'))),
  };
}

/** Self time by where the code lives. */
function summarise(cpuProfile) {
  const nodes = new Map(cpuProfile.nodes.map((node) => [node.id, node]));
  const byPlace = new Map();
  for (let i = 0; i < cpuProfile.samples.length; i++) {
    const node = nodes.get(cpuProfile.samples[i]);
    const place = placeOf(node.callFrame);
    byPlace.set(place, (byPlace.get(place) ?? 0) + (cpuProfile.timeDeltas[i] ?? 0));
  }
  byPlace.delete('(idle)');
  return byPlace;
}

function placeOf({ url, functionName }) {
  if (!url) {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(idle)') return '(idle)';
    if (/^(writev|writeBuffer|writeUtf8String|writeLatin1String|writeString)$/.test(functionName))
      return 'Node: HTTP and sockets';
    return 'V8 and native (other)';
  }
  if (url.includes('/apps/server/dist/')) return `ours: ${url.split('/apps/server/dist/')[1]}`;
  if (url.includes('/packages/contract/')) return 'ours: contract';
  if (
    /node_modules\/\.pnpm\/(express|router|body-parser|finalhandler|parseurl|path-to-regexp|send|on-finished|type-is|content-type|qs|depd|encodeurl|proxy-addr|forwarded|ipaddr)@/.test(
      url,
    )
  )
    return 'Express';
  if (/@ts-rest|zod@/.test(url)) return 'ts-rest and zod';
  if (/pino|sonic-boom|@pinojs|fast-redact/.test(url)) return 'logging (pino)';
  if (/helmet|cors@|express-rate-limit|cookie@/.test(url)) return 'middleware (helmet, cors, rate limit)';
  if (
    /node:(internal\/)?(http|_http|net|stream|internal\/streams|internal\/stream_base|events|buffer|internal\/buffer|internal\/http)/.test(
      url,
    ) ||
    url.startsWith('node:_http')
  )
    return 'Node: HTTP and sockets';
  if (/node:(internal\/)?crypto/.test(url)) return 'Node: crypto';
  if (url.startsWith('node:')) return 'Node: other';
  return 'other dependencies';
}

const enc = encodeURIComponent;
const mix = [
  '/api/v1/release?limit=20',
  '/api/v1/release?limit=50&sort=release_date',
  `/api/v1/release?genres=${enc('electropop')}&limit=20`,
  `/api/v1/release?vocaloid_banks=${enc('Hatsune Miku')}&languages=ja&limit=20`,
  '/api/v1/facets',
];
const cli = (cliArgs, input) =>
  execFileSync(process.execPath, [path.join(root, 'apps/server/dist/cli/main.js'), ...cliArgs], {
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production', LOG_LEVEL: 'warn' },
    input,
  }).toString();
const apiKey = async () => ({ 'x-api-key': JSON.parse(cli(['keys', 'create', '--name', 'profile', '--json'])).key });
const email = `profile-${Date.now()}@example.com`;
const password = 'profile password 1234';
cli(['users', 'create', '--email', email], password);
// A session is verified (found in the database, then reused for a second), then answered like the others.
const session = async (baseUrl) => {
  const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return { authorization: `Bearer ${(await response.json()).data.session.token}` };
};
/** The distinct URLs, collected on a server of their own (not profiled), then asked for by the profiled one. */
async function distinctUrls() {
  const collector = spawn(process.execPath, [path.join(root, 'apps/server/dist/main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_ANONYMOUS: '1000000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        if (i > 300) throw new Error('the server did not start');
      }
      await delay(100);
    }
    const facets = (await (await fetch(`${base}/api/v1/facets`)).json()).data;
    return interleave(Object.values(await collectDistinctUrls(base, facets)));
  } finally {
    collector.kill('SIGTERM');
    await new Promise((resolve) => collector.once('exit', resolve));
  }
}

const runs = args.includes('--distinct')
  ? [await profile('distinct URLs, anonymous (first requests)', await distinctUrls())]
  : [
      await profile('anonymous (answered from memory)', mix),
      await profile('API key (answered from memory)', mix, apiKey),
      await profile('session (answered from memory)', mix, session),
    ];

for (const run of runs) {
  const total = [...run.cpu.values()].reduce((a, b) => a + b, 0);
  console.log(
    `\n${run.label}: ${Math.round(run.rps)} req/s, ${run.requests} requests profiled; per request ${(total / run.requests).toFixed(0)} µs of CPU, ${(run.allocated / run.requests / 1024).toFixed(1)} KB allocated`,
  );
  for (const [place, micros] of [...run.cpu].sort((a, b) => b[1] - a[1]).slice(0, 14)) {
    console.log(
      `  ${(micros / run.requests).toFixed(1).padStart(6)} µs  ${((micros / total) * 100).toFixed(1).padStart(5)} %  ${place}`,
    );
  }
}
