// `pnpm bench`: the built server against two bare node:http references on the same synthetic catalogue.
//
//   pnpm bench                         100,000 releases on SQLite
//   pnpm bench -- --rows 1000000       a million (or --large)
//   pnpm bench -- --db postgres        on PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test;
//                                      a schema of its own per catalogue size, kept between runs)
//   pnpm bench -- --instances 2        also: one vs two instances behind nginx (Debian's), sharing the database and
//                                      Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379)
//   pnpm bench -- --idle 60            how long the server sits idle before the after-idle measurement (seconds)
//   pnpm bench -- --distinct           the distinct-URL workload instead (bench/distinct-urls.mjs): thousands of
//                                      first requests, each URL once per round, more than any cache holds
//   pnpm bench -- --record             also write the figures into bench/RESULTS.md
//
// Every server is its own process; the load comes from another (load.mjs) over loopback. Ratios are taken
// between servers measured in the same run, alternating which goes first; absolute figures on a shared
// machine move between runs, ratios much less.
import { execFileSync, fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { catalogueFolder, postgresCatalogueSchema, postgresCatalogueUrl, postgresServerUrl } from './catalogues.mjs';
import { collectDistinctUrls, interleave } from './distinct-urls.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const serverDist = path.join(root, 'apps/server/dist');
const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const rows = flag('large') ? 1_000_000 : Number(option('rows', 100_000));
const durationMs = Number(option('duration', 5)) * 1000;
const connections = Number(option('connections', 8));
const database = option('db', 'sqlite');
const instances = Number(option('instances', 1));
const idleSeconds = Number(option('idle', 60));
const distinct = flag('distinct');
const seed = 42;
/** Bump when the synthetic generator changes, so kept catalogues are rebuilt. */
const generatorVersion = 3;
if (!['sqlite', 'postgres'].includes(database)) throw new Error('--db takes sqlite or postgres');

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitFor(url) {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await delay(100);
  }
  throw new Error(`${url} did not come up`);
}

// --- the catalogue ------------------------------------------------------------------------------------------
const work = catalogueFolder(database, rows);
mkdirSync(work, { recursive: true });
const marker = path.join(work, 'seeded.json');
let databaseUrl;
let referenceDatabase;
if (database === 'sqlite') {
  const file = path.join(work, 'releases.db');
  databaseUrl = `file:${file}`;
  referenceDatabase = file;
} else {
  databaseUrl = postgresCatalogueUrl(rows);
  referenceDatabase = databaseUrl;
}
const env = { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
const cli = (...cliArgs) =>
  execFileSync(process.execPath, [path.join(serverDist, 'cli/main.js'), ...cliArgs], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  }).toString();

const seeded = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : {};
if (seeded.seed !== seed || seeded.generatorVersion !== generatorVersion) {
  console.error(`seeding ${rows.toLocaleString()} synthetic releases (seed ${seed}) on ${database}...`);
  if (database === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${referenceDatabase}${suffix}`, { force: true });
  } else {
    const pg = createRequire(path.join(root, 'apps/server/package.json'))('pg');
    const admin = new pg.Client({
      connectionString: postgresServerUrl,
    });
    await admin.connect();
    await admin.query(`drop schema if exists ${postgresCatalogueSchema(rows)} cascade`);
    await admin.query(`create schema ${postgresCatalogueSchema(rows)}`);
    await admin.end();
  }
  const started = performance.now();
  cli('seed', '--synthetic', String(rows), '--seed', String(seed));
  const seconds = (performance.now() - started) / 1000;
  console.error(`seeded in ${seconds.toFixed(1)} s`);
  writeFileSync(marker, JSON.stringify({ rows, seed, generatorVersion, seconds }));
}
const apiKey = JSON.parse(cli('keys', 'create', '--name', 'bench', '--json')).key;
const account = { email: `bench-${Date.now()}@example.com`, password: 'a bench password' };
execFileSync(process.execPath, [path.join(serverDist, 'cli/main.js'), 'users', 'create', '--email', account.email], {
  env,
  input: account.password,
  stdio: ['pipe', 'ignore', 'inherit'],
});

// --- the servers ----------------------------------------------------------------------------------------------
const children = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function startOurs({ publicUrl, redis } = {}) {
  const port = await freePort();
  // As docs/deploy.md runs it: a young generation that does not shrink while idle (see bench/RESULTS.md).
  const child = spawn(process.execPath, ['--min-semi-space-size=16', path.join(serverDist, 'main.js')], {
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: publicUrl ?? `http://127.0.0.1:${port}`,
      // Production logging stays on (one JSON line per request), to a sink: its cost is part of the measurement.
      LOG_LEVEL: 'info',
      RATE_LIMIT_ANONYMOUS: '1000000000',
      RATE_LIMIT_API_KEY: '1000000000',
      RATE_LIMIT_SESSION: '1000000000',
      ...(redis ? { REDIS_URL: redisUrl, TRUST_PROXY: 'loopback' } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`);
  return { url, pid: child.pid, child };
}

async function startReference(sql) {
  const port = await freePort();
  const child = fork(
    path.join(here, 'reference-server.mjs'),
    ['--sql', sql, '--db', referenceDatabase, '--port', String(port)],
    {
      stdio: 'inherit',
    },
  );
  children.push(child);
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the ${sql} reference exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, child };
}

const ours = await startOurs();
const same = await startReference('same');
const straightforward = await startReference('straightforward');

// --- the requests: kinds, each a rotation of distinct URLs -----------------------------------------------------
const facets = (await (await fetch(`${ours.url}/api/v1/facets`)).json()).data;
const enc = encodeURIComponent;
const top = (list, n) => list.slice(0, n).map((f) => f.value);
const broadBanks = top(facets.vocaloid_banks, 4);
const broadGenres = top(facets.genres, 6);
const languages = top(facets.languages, 3);
const rare = facets.vocaloid_banks.filter((f) => f.count > 0 && f.count < 50).map((f) => f.value);
if (rare.length === 0) throw new Error('no voice bank with fewer than 50 releases in this catalogue');

const limits = [10, 20, 20, 25, 50];
const pageOne = limits.flatMap((limit) => [
  `/api/v1/release?limit=${limit}`,
  `/api/v1/release?limit=${limit}&sort=release_date`,
]);
const kinds = {
  'no filter': pageOne,
  'one broad filter': [
    ...broadBanks.map((b) => `vocaloid_banks=${enc(b)}`),
    ...broadGenres.map((g) => `genres=${enc(g)}`),
  ].flatMap((q) => [20, 50].map((limit) => `/api/v1/release?${q}&limit=${limit}`)),
  'two filters': broadBanks
    .flatMap((b) => languages.map((l) => `/api/v1/release?vocaloid_banks=${enc(b)}&languages=${l}&limit=20`))
    .concat(
      broadGenres
        .slice(0, 3)
        .flatMap((g) => languages.map((l) => `/api/v1/release?genres=${enc(g)}&languages=${l}&limit=20`)),
    ),
  'selective filter': rare.flatMap((b) => [
    `/api/v1/release?vocaloid_banks=${enc(b)}`,
    `/api/v1/release?vocaloid_banks=${enc(b)}&sort=release_date`,
  ]),
};

// Deep pages: cursors collected along a full walk (a cursor is bound to filters and sort, not to limit).
async function cursorsAlongWalk(query, every) {
  const cursors = [];
  let cursor = '';
  for (let page = 1; ; page++) {
    const body = await (
      await fetch(`${ours.url}/api/v1/release?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`)
    ).json();
    cursor = body.data.pagination;
    if (!cursor) return cursors;
    if (page % every === 0) cursors.push(cursor);
  }
}
const deepUnfiltered = await cursorsAlongWalk('', Math.max(1, Math.floor(rows / 100 / 40)));
const deepGenre = await cursorsAlongWalk(`&genres=${enc(broadGenres[0])}`, Math.max(1, Math.floor(rows / 100 / 60)));
kinds['deep pages (cursor)'] = [
  ...deepUnfiltered.slice(Math.floor(deepUnfiltered.length / 4)).map((c) => `/api/v1/release?limit=20&cursor=${c}`),
  ...deepGenre
    .slice(Math.floor(deepGenre.length / 4))
    .map((c) => `/api/v1/release?genres=${enc(broadGenres[0])}&limit=20&cursor=${c}`),
];
const interleaved = [];
const longest = Math.max(...Object.values(kinds).map((list) => list.length));
for (let i = 0; i < longest; i++)
  for (const list of Object.values(kinds)) if (i < list.length) interleaved.push(list[i]);
kinds['whole mix'] = interleaved;

// --- measuring -----------------------------------------------------------------------------------------------
/**
 * CPU seconds a process and its live children have used so far (user + system), from /proc: nginx's master
 * forks the workers that do its work.
 */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const own = (Number(fields[11]) + Number(fields[12])) / 100;
  const childrenFile = `/proc/${pid}/task/${pid}/children`;
  const children = existsSync(childrenFile)
    ? readFileSync(childrenFile, 'utf8').trim().split(/\s+/).filter(Boolean)
    : [];
  return own + children.reduce((sum, child) => sum + cpuSeconds(Number(child)), 0);
}
/**
 * A process's resident memory, from /proc: `anon`, what it owns (its heap, SQLite's page cache, buffers), and
 * `total`, which also counts the pages of files it maps (the SQLite reader maps the database: those pages are
 * the operating system's file cache, shared with every process and given back under pressure).
 */
function rssMegabytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n');
  const field = (name) => Number(status.find((l) => l.startsWith(`${name}:`))?.split(/\s+/)[1] ?? 0) / 1024;
  return { anon: field('RssAnon'), total: field('VmRSS') };
}

let peakRss = 0;
let peakRssTotal = 0;
/** One measurement: closed-loop load from its own process; the servers' CPU and our RSS sampled meanwhile. */
function load(baseUrl, paths, { headers, watch = [] } = {}) {
  const config = { baseUrl, paths, connections, durationMs, warmupMs: 1000, maxRequests: 2_000_000, headers };
  const cpuBefore = watch.map(cpuSeconds);
  // Peak RSS is the single instance's (the scaling phase runs others, after it has stopped).
  const sampler = setInterval(() => {
    if (watch.includes(ours.pid)) {
      const rss = rssMegabytes(ours.pid);
      peakRss = Math.max(peakRss, rss.anon);
      peakRssTotal = Math.max(peakRssTotal, rss.total);
    }
  }, 250);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(here, 'load.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.end(JSON.stringify(config));
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) return reject(new Error(`load.mjs exited with ${code}`));
      const result = JSON.parse(out);
      // CPU over warm-up and measurement alike, per request measured: an upper bound, good for comparing.
      result.cpuSeconds = watch.map((pid, i) => cpuSeconds(pid) - cpuBefore[i]);
      resolve(result);
    });
  });
}

const results = [];
let order = 0;
const measured = (kind, paths, headers) => async () => {
  // Rotate which server goes first, so none always gets the warmer (or the more tired) machine.
  const servers = [
    ['ours', ours],
    ['same', same],
    ['straightforward', straightforward],
  ];
  const rotated = servers.slice(order % 3).concat(servers.slice(0, order % 3));
  order++;
  const row = { kind, urls: paths.length };
  for (const [name, server] of rotated) {
    // The references take no credentials; they answer the same URLs without them.
    row[name] = await load(server.url, paths, { headers: name === 'ours' ? headers : undefined, watch: [server.pid] });
  }
  row.ratioSame = row.ours.rps / row.same.rps;
  row.ratioStraightforward = row.ours.rps / row.straightforward.rps;
  results.push(row);
  console.error(`measured ${kind}`);
};
const afterIdle = [];
if (distinct) {
  // Collected on ours: a cursor is signed with the database's secret, so every server takes them. Nothing is
  // answered from memory twice in a row here either: each URL comes back only after thousands of others.
  const families = await collectDistinctUrls(ours.url, facets);
  const total = Object.values(families).reduce((sum, list) => sum + list.length, 0);
  console.error(`${total} distinct URLs`);
  // A family smaller than twice what the answer cache holds would measure the cache, not first requests.
  for (const [kind, urls] of [
    ['distinct: unfiltered', families.unfiltered],
    ['distinct: one filter', families.oneFilter],
    ['distinct: two filters', families.twoFilters],
  ]) {
    if (urls.length >= 4_000) await measured(kind, urls)();
    else console.error(`${kind}: only ${urls.length} URLs in this catalogue, measured within the whole mix only`);
  }
  await measured('distinct: whole mix', interleave(Object.values(families)))();
} else {
  for (const [kind, paths] of Object.entries(kinds)) await measured(kind, paths)();
  // Callers with a credential: an API key (the SDK's users) and a session (the web app's). Each is verified on
  // every request (the key through its cache, the session in the database), then answered as anyone else is.
  await measured('page one with an API key', pageOne, { 'x-api-key': apiKey })();
  const login = await fetch(`${ours.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(account),
  });
  const sessionToken = (await login.json()).data.session.token;
  await measured('page one with a session', pageOne, { authorization: `Bearer ${sessionToken}` })();

  // After an idle spell: V8 shrinks the heap of an idle process, which can cost the first minutes of load after it.
  console.error(`idle for ${idleSeconds} s...`);
  await delay(idleSeconds * 1000);
  for (let i = 0; i < 3; i++) afterIdle.push(await load(ours.url, kinds['whole mix'], { watch: [ours.pid] }));
}

// --- one and two instances behind nginx -----------------------------------------------------------------------
let scaling;
if (instances === 2 && !distinct) {
  const { startLoadBalancer } = await import('./load-balancer.mjs');
  ours.child.kill('SIGTERM');
  const balancerPort = await freePort();
  const publicUrl = `http://127.0.0.1:${balancerPort}`;
  const a = await startOurs({ publicUrl, redis: true });
  const b = await startOurs({ publicUrl, redis: true });
  scaling = [];
  for (const upstreams of [[a], [a, b]]) {
    const balancer = await startLoadBalancer({
      port: balancerPort,
      upstreams: upstreams.map((u) => new URL(u.url).host),
    });
    try {
      await waitFor(`${publicUrl}/readyz`);
      const pids = [...upstreams.map((u) => u.pid), balancer.pid];
      const result = await load(publicUrl, kinds['whole mix'], { watch: pids });
      scaling.push({ instances: upstreams.length, result, pids });
    } finally {
      await balancer.stop();
    }
  }
}
for (const child of children) child.kill('SIGTERM');

// --- report ---------------------------------------------------------------------------------------------------
const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const cpuPerRequest = (r) => (r.cpuSeconds[0] / (r.requests * (1 + 1000 / durationMs))) * 1e6;
const table = [
  '| request kind | URLs | ours req/s | ours p50 ms | ours p99 ms | ours CPU µs/req | same-SQL req/s | same-SQL p99 ms | straightforward req/s | straightforward p99 ms | ours / same-SQL | ours / straightforward |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.kind} | ${r.urls} | ${fmt(r.ours.rps, 0)} | ${fmt(r.ours.p50)} | ${fmt(r.ours.p99)} | ${fmt(cpuPerRequest(r.ours), 0)} | ${fmt(r.same.rps, 0)} | ${fmt(r.same.p99)} | ${fmt(r.straightforward.rps, 0)} | ${fmt(r.straightforward.p99)} | **${fmt(r.ratioSame)}** | **${fmt(r.ratioStraightforward)}** |`,
  ),
];

const byKind = Object.fromEntries(results.map((r) => [r.kind, r]));
// First requests meet the database every time: the target is the same SQL without the framework, within 10 %.
const sameTarget = distinct ? 0.9 : database === 'sqlite' ? 1.0 : 0.9;
const targets = [
  [
    `ours / same-SQL >= ${sameTarget} on every request kind (lowest ${fmt(Math.min(...results.map((r) => r.ratioSame)))})`,
    results.every((r) => r.ratioSame >= sameTarget),
  ],
  [
    `p99 <= 15 ms on every request kind (highest ${fmt(Math.max(...results.map((r) => r.ours.p99)))} ms)`,
    results.every((r) => r.ours.p99 <= 15),
  ],
  [
    `server memory under load <= 200 MB (peak ${fmt(peakRss, 0)} MB anonymous; ${fmt(peakRssTotal, 0)} MB resident with the mapped database file)`,
    peakRss <= 200,
  ],
];
if (!distinct) {
  const deepVsFirst = byKind['deep pages (cursor)'].ours.p50 / byKind['no filter'].ours.p50;
  const worstAfterIdle = Math.max(...afterIdle.map((r) => r.p99));
  const mixP99 = byKind['whole mix'].ours.p99;
  targets.push(
    [`deep pages p50 within 1.2x of page one (${fmt(deepVsFirst)}x)`, deepVsFirst <= 1.2],
    [
      `after ${idleSeconds} s idle, the whole mix's p99 within 1.5x of before (${afterIdle.map((r) => fmt(r.p99)).join(', ')} ms vs ${fmt(mixP99)} ms)`,
      worstAfterIdle <= 1.5 * mixP99,
    ],
  );
}
// Ours must answer everything. A reference that cannot (the straightforward one takes seconds per selective
// query at 1M, and the load generator gives up on some) is reported, not a failure of the run.
const failures = results.flatMap((r) =>
  r.ours.errors || r.ours.non2xx ? [`${r.kind}: ours had ${r.ours.errors} errors, ${r.ours.non2xx} non-2xx`] : [],
);
const referenceTrouble = results.flatMap((r) =>
  ['same', 'straightforward'].flatMap((name) =>
    r[name].errors || r[name].non2xx
      ? [`${r.kind}: the ${name} reference had ${r[name].errors} errors, ${r[name].non2xx} non-2xx`]
      : [],
  ),
);
const scalingLines = scaling
  ? [
      '',
      'Whole mix through nginx (round robin), instances sharing the database and Redis:',
      '',
      '| instances | req/s | p50 ms | p99 ms | CPU share per process (cores): instances, nginx |',
      '|---:|---:|---:|---:|---|',
      ...scaling.map(({ instances: n, result }) => {
        const seconds = (durationMs + 1000) / 1000;
        const shares = result.cpuSeconds.map((s) => fmt(s / seconds));
        return `| ${n} | ${fmt(result.rps, 0)} | ${fmt(result.p50)} | ${fmt(result.p99)} | ${shares.join(', ')} |`;
      }),
    ]
  : [];
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
const report = [
  `Catalogue: ${rows.toLocaleString('en-US')} synthetic releases (seed ${seed}), ${database === 'sqlite' ? 'SQLite file' : 'PostgreSQL'}${seeded.seconds ? `, seeded in ${fmt(seeded.seconds, 0)} s` : ''}. ${connections} keep-alive connections, ${durationMs / 1000} s per measurement after 1 s warm-up.`,
  `Machine: ${machine}.`,
  '',
  ...table,
  '',
  ...(distinct
    ? []
    : [
        `After ${idleSeconds} s idle, whole mix three times: ${afterIdle.map((r) => `${fmt(r.rps, 0)} req/s p99 ${fmt(r.p99)} ms`).join('; ')}.`,
      ]),
  ...scalingLines,
  '',
  ...targets.map(([text, ok]) => `- ${ok ? 'met' : 'MISSED'}: ${text}`),
  ...failures.map((f) => `- ERROR: ${f}`),
  ...referenceTrouble.map((f) => `- note: ${f}`),
].join('\n');
console.log(report);

if (flag('record')) {
  const file = path.join(here, 'RESULTS.md');
  // Keep earlier dated entries; the header (with its own sections) is rewritten from RESULTS.header.md.
  const previous = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n## ')
        .slice(1)
        .filter((s) => /^\d{4}-/.test(s))
        .map((s) => `## ${s}`)
    : [];
  const header = readFileSync(path.join(here, 'RESULTS.header.md'), 'utf8');
  const title = `${new Date().toISOString().slice(0, 10)}: ${rows.toLocaleString('en-US')} releases, ${database === 'sqlite' ? 'SQLite' : 'PostgreSQL'}${instances === 2 && !distinct ? ', one and two instances' : ''}${distinct ? ', distinct URLs (first requests)' : ''}`;
  writeFileSync(file, [header.trimEnd(), '', `## ${title}\n\n${report}\n`, ...previous].join('\n'));
  console.error(`recorded in ${path.relative(root, file)}`);
}
process.exit(failures.length > 0 ? 1 : 0);
