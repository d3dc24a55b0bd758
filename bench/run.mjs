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
//   pnpm bench -- --rounds 3           measurements of ours and same-SQL per request kind, alternating (median kept)
//   pnpm bench -- --record             also append the run to bench/history.jsonl, then regenerate bench/RESULTS.md
//                                      and bench/history.svg from it (bench/report.mjs)
//   pnpm bench -- --check              only check that the references answer searches and facets as ours does
//
// Every server is its own process; the load comes from another (load.mjs) over loopback. Ratios are taken
// between servers measured in the same run, alternating which goes first; absolute figures on a shared
// machine move between runs, ratios much less.
import { execFileSync, fork, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { catalogueFolder, postgresCatalogueSchema, postgresCatalogueUrl, postgresServerUrl } from './catalogues.mjs';
import { collectDistinctUrls, interleave, walk } from './distinct-urls.mjs';
import { historyFile, writeReport } from './report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const serverDist = path.join(root, 'apps/server/dist');
const args = process.argv.slice(2);
/** The server's own dependencies (pg, better-sqlite3), which the bench uses too. */
const requireFromServer = createRequire(path.join(root, 'apps/server/package.json'));
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
/**
 * Measurements of ours and of same-SQL per request kind, alternating (ours, same, ours, same...): this machine's
 * speed moves by a quarter between runs of a few seconds, and one measurement each made the ratio a coin toss.
 * Each server's figures are those of its median round by req/s. (The straightforward reference, tens of times
 * slower where it matters, is measured once.)
 */
const rounds = Number(option('rounds', 3));
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

let seeded = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : {};
if (seeded.seed !== seed || seeded.generatorVersion !== generatorVersion) {
  console.error(`seeding ${rows.toLocaleString()} synthetic releases (seed ${seed}) on ${database}...`);
  if (database === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${referenceDatabase}${suffix}`, { force: true });
  } else {
    const pg = requireFromServer('pg');
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
  seeded = { rows, seed, generatorVersion, seconds };
  writeFileSync(marker, JSON.stringify(seeded));
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
  // As docs/deploy.md runs it: a young generation that does not shrink while idle (see docs/architecture.md).
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

// Search (SPEC §3.6): `q` alone and with a filter, by relevance (the default with q) and by date, page one and
// deep pages. Terms from the synthetic catalogue's vocabulary (apps/server/src/catalogue/synthetic.ts).
const search = (q, rest = '') => `/api/v1/release?q=${enc(q)}${rest}`;
const bySort = (list) =>
  list.flatMap((q, i) => [search(q, `&limit=${[20, 50][i % 2]}`), search(q, '&sort=-release_date')]);
kinds['search: common word'] = bySort(['love', 'star', 'night', 'heart', 'dream']);
kinds['search: rare (a producer)'] = bySort(['producer 123', 'producer 007', '250', 'producer 399', '042']);
kinds['search: Japanese'] = bySort(['初音', 'ハッピー', '桜', '東京', '夜']);
kinds['search: two terms'] = bySort([
  'star love',
  'melt world',
  'night sky',
  '初音 ミク',
  'love 123',
  '初音の桜',
  'love 初音',
]);
kinds['search with a filter'] = [
  ['love', `vocaloid_banks=${enc(broadBanks[0])}`],
  ['初音', `genres=${enc(broadGenres[0])}`],
  ['star', `languages=${languages[0]}`],
  ['ハッピー', `vocaloid_banks=${enc(broadBanks[0])}`],
  ['producer 123', `genres=${enc(broadGenres[1])}`],
].flatMap(([q, filter], i) => [
  search(q, `&${filter}&limit=${[20, 50][i % 2]}`),
  search(q, `&${filter}&sort=-release_date`),
]);

/** Every cursor along a whole walk of `query` (limit 100), then `count` of them from its second quarter on. */
async function sampledCursors(query, count) {
  const cursors = [];
  let cursor = '';
  for (;;) {
    const body = await (
      await fetch(`${ours.url}/api/v1/release?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`)
    ).json();
    cursor = body.data.pagination;
    if (!cursor) break;
    cursors.push(cursor);
  }
  const from = Math.floor(cursors.length / 4);
  const step = Math.max(1, Math.floor((cursors.length - from) / count));
  return cursors
    .slice(from)
    .filter((_, i) => i % step === 0)
    .slice(0, count);
}
const deepSearches = [
  `&q=love`,
  `&q=love&sort=-release_date`,
  `&q=${enc('初音')}`,
  `&q=star&genres=${enc(broadGenres[0])}`,
];
kinds['search: deep pages (cursor)'] = [];
for (const query of deepSearches)
  for (const cursor of await sampledCursors(query, 8))
    kinds['search: deep pages (cursor)'].push(`/api/v1/release?limit=20${query}&cursor=${cursor}`);

const interleaved = [];
const longest = Math.max(...Object.values(kinds).map((list) => list.length));
for (let i = 0; i < longest; i++)
  for (const list of Object.values(kinds)) if (i < list.length) interleaved.push(list[i]);
kinds['whole mix'] = interleaved;

// Facets in context (SPEC §3.6): counts over the releases matching a search, filters, or both.
kinds['facets in context'] = [
  '/api/v1/facets?q=love',
  `/api/v1/facets?q=${enc('初音')}`,
  `/api/v1/facets?q=${enc('producer 123')}`,
  '/api/v1/facets?q=star%20love',
  `/api/v1/facets?genres=${enc(broadGenres[0])}&languages=${languages[0]}`,
  `/api/v1/facets?vocaloid_banks=${enc(broadBanks[0])}`,
  `/api/v1/facets?genres=${enc(broadGenres[0])},${enc(broadGenres[1])}`,
  `/api/v1/facets?q=love&genres=${enc(broadGenres[0])}`,
  `/api/v1/facets?q=${enc('桜')}&vocaloid_banks=${enc(broadBanks[0])}`,
  `/api/v1/facets?q=night&languages=${languages[1]}`,
];
/** The kinds with searches in them (the whole mix holds every kind of list request, searches included). */
const isSearchKind = (kind) => /search|whole mix/.test(kind);
const isFacetsKind = (kind) => /facets/.test(kind);

// --- before measuring: facets in context answer at all ------------------------------------------------------------
/**
 * A facets query that takes minutes would hold the server and every measurement after it. So each facets URL is
 * first asked of a throwaway instance of ours, at most `facetsProbeMs` each; if one does not answer in time, that
 * instance is killed and the facets rows are left out (reported). The instance is warmed up first as the measured
 * one is by then (it reads the filter values into memory after it starts, and counts in the database meanwhile):
 * facets with one genre each, until two in a row take under 50 ms, for at most `facetsWarmUpMs`.
 */
const facetsProbeMs = 60_000;
const facetsWarmUpMs = 120_000;
/** Each facets URL's time as a first request, alone, on a warmed-up instance. */
const facetsProbed = [];
async function timedFetch(url, ms) {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    await (await fetch(url, { signal: controller.signal })).text();
    return performance.now() - started;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
/** Facets with one genre and a language each, until two in a row take under 50 ms (at most `facetsWarmUpMs`). */
async function warmUpFacets(server) {
  const warmUpUntil = performance.now() + facetsWarmUpMs;
  const genres = facets.genres.map((f) => f.value);
  for (let i = 0, fast = 0; fast < 2 && performance.now() < warmUpUntil; i++) {
    const ms = await timedFetch(
      `${server.url}/api/v1/facets?genres=${enc(genres[i % genres.length])}&languages=${languages[Math.floor(i / genres.length) % languages.length]}`,
      facetsProbeMs,
    );
    fast = ms !== undefined && ms < 50 ? fast + 1 : 0;
  }
}
async function probeFacets(urls) {
  const probe = await startOurs();
  try {
    await warmUpFacets(probe);
    for (const url of urls) {
      const ms = await timedFetch(`${probe.url}${url}`, facetsProbeMs);
      if (ms === undefined)
        return `ours did not answer ${url} within ${facetsProbeMs / 1000} s (on a throwaway instance, then killed): the facets rows are not measured`;
      facetsProbed.push({ url, ms });
      console.error(`probed ${url}: ${ms.toFixed(0)} ms`);
    }
    return undefined;
  } finally {
    probe.child.kill('SIGKILL');
  }
}
const facetsBroken = await probeFacets(kinds['facets in context']);
// The measured instance too, before anything is compared or measured on it.
await warmUpFacets(ours);
if (facetsBroken) {
  console.error(`FACETS: ${facetsBroken}`);
  delete kinds['facets in context'];
}

// --- before measuring: the references answer as ours does --------------------------------------------------------
/**
 * The same-SQL reference must give ours' answers exactly (ids in order, the next cursor, facet counts): a search
 * it answered otherwise would be measuring another query. Page one of searches of every kind, and walks that cross
 * the relevance tiers, each page asked of both with ours' cursor. The straightforward one matches a substring
 * anywhere (not a word's beginning), so it is only compared loosely: how many of its ids ours gave too.
 */
/** What the check saw besides matches (a timeout), for the report. */
const checkNotes = [];
async function checkAnswers() {
  const get = async (server, url) => {
    const response = await fetch(`${server.url}${url}`);
    if (!response.ok) throw new Error(`${url} on ${server.url}: ${response.status} ${await response.text()}`);
    return (await response.json()).data;
  };
  const listUrls = [
    ...[
      'love',
      'Love',
      'ＬＯＶＥ',
      'lov',
      '初音',
      'ハッピー',
      '桜',
      'producer 123',
      '123',
      'star love',
      'love 初音',
      '初音の桜',
      'p melt',
      '!!!',
    ].flatMap((q) => [search(q), search(q, '&sort=-release_date&limit=50'), search(q, '&sort=release_date&limit=7')]),
    search('love', `&vocaloid_banks=${enc(broadBanks[0])}&limit=100`),
    search('初音', `&genres=${enc(broadGenres[0])}&languages=${languages[0]}`),
  ];
  const pageOneUrls = listUrls.length;
  const walks = [
    ['love heart', 20],
    ['p melt telecaster', 20],
    ['p melt', 100],
    ['初音', 100],
  ];
  for (const [q, limit] of walks) {
    let cursor = '';
    for (let page = 0; page < 15; page++) {
      const url = search(q, `&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      listUrls.push(url);
      cursor = (await get(ours, url)).pagination;
      if (!cursor) break;
    }
  }
  // The straightforward reference scans for each (seconds apiece at a million releases): it is compared on
  // page one of each search only, and on a few facets.
  const looselyCompared = new Set(listUrls.slice(0, pageOneUrls));
  const ids = (data) => data.releases.map((r) => r.id);
  let sameAsStraightforward = 0;
  let sharedWithStraightforward = 0;
  let oursTotal = 0;
  for (const url of listUrls) {
    const [a, b] = await Promise.all([get(ours, url), get(same, url)]);
    if (JSON.stringify(ids(a)) !== JSON.stringify(ids(b)) || a.pagination !== b.pagination) {
      throw new Error(
        `WRONG RESULTS: ours and the same-SQL reference differ on ${url}\n  ours: ${ids(a).join(' ')} next ${a.pagination}\n  same: ${ids(b).join(' ')} next ${b.pagination}`,
      );
    }
    if (!looselyCompared.has(url)) continue;
    const c = await get(straightforward, url);
    if (JSON.stringify(ids(a)) === JSON.stringify(ids(c))) sameAsStraightforward++;
    const theirs = new Set(ids(c));
    sharedWithStraightforward += ids(a).filter((id) => theirs.has(id)).length;
    oursTotal += ids(a).length;
  }
  const facetUrls = facetsBroken
    ? []
    : [
        ...kinds['facets in context'],
        '/api/v1/facets?q=!!!',
        `/api/v1/facets?q=love&vocaloid_banks=${enc(broadBanks[0])},${enc(rare[0])}`,
      ];
  let facetsTotalsAlike = 0;
  let facetsCompared = 0;
  const facetsLooselyCompared = 3;
  for (const [i, url] of facetUrls.entries()) {
    // One server at a time: the straightforward counts scan, and would slow the others' past their timeouts.
    // A 503 (ours' statement timeout) is reported, not compared.
    const answers = [];
    for (const server of i < facetsLooselyCompared ? [ours, same, straightforward] : [ours, same]) {
      try {
        answers.push(await get(server, url));
      } catch (error) {
        if (!/: 503 /.test(String(error.message))) throw error;
        const name = server === ours ? 'ours' : server === same ? 'same-SQL' : 'straightforward';
        checkNotes.push(`${name} answered ${decodeURI(url)} with a 503 (database timeout)`);
        answers.push(undefined);
      }
    }
    const [a, b, c] = answers;
    if (!a || !b) continue;
    facetsCompared++;
    for (const data of answers) if (data) delete data.generated_at;
    if (JSON.stringify(a) !== JSON.stringify(b))
      throw new Error(
        `WRONG RESULTS: ours and the same-SQL reference differ on ${url}\n  ours: ${JSON.stringify(a)}\n  same: ${JSON.stringify(b)}`,
      );
    if (a.total === c?.total) facetsTotalsAlike++;
  }
  const summary = `${listUrls.length} list URLs (search) and ${facetsCompared} facets URLs answered alike by ours and same-SQL; straightforward: the same page on ${sameAsStraightforward} of ${looselyCompared.size} page-one URLs, ${sharedWithStraightforward} of ours' ${oursTotal} ids there among its own, the same facets total on ${facetsTotalsAlike} of ${Math.min(facetsLooselyCompared, facetUrls.length)} (it matches substrings, not word beginnings)`;
  console.error(`checked: ${summary}`);
  return summary;
}
const checked = await checkAnswers();
if (flag('check')) process.exit(0);

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

/**
 * The machine's CPU time so far, from /proc/stat (Linux): all of it, and what the hypervisor gave to other
 * guests while this one wanted to run (`steal`). On this shared host one measurement lost 39 % of the machine's
 * CPU this way (2026-11-29), so the entry says how much they lost. Undefined elsewhere.
 */
function machineCpu() {
  if (!existsSync('/proc/stat')) return undefined;
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: fields.reduce((sum, n) => sum + n, 0), steal: fields[7] ?? 0 };
}
/** The share of the machine's CPU time stolen during each measurement. */
const stolen = [];

let peakRss = 0;
let peakRssTotal = 0;
/** One measurement: closed-loop load from its own process; the servers' CPU and our RSS sampled meanwhile. */
function load(baseUrl, paths, { headers, watch = [], slowest = 0 } = {}) {
  const config = {
    baseUrl,
    paths,
    connections,
    durationMs,
    warmupMs: 1000,
    maxRequests: 2_000_000,
    headers,
    slowest,
  };
  const cpuBefore = watch.map(cpuSeconds);
  const machineBefore = machineCpu();
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
      const machineAfter = machineCpu();
      if (machineBefore && machineAfter && machineAfter.total > machineBefore.total) {
        result.stolen = (machineAfter.steal - machineBefore.steal) / (machineAfter.total - machineBefore.total);
        stolen.push(result.stolen);
      }
      resolve(result);
    });
  });
}

/**
 * Waits until the last measured server has finished what its load left running: a reference's scans go on after
 * its clients stop (seconds each at a million releases, in its process or in PostgreSQL), and would otherwise
 * be measured as the next server's slowness. Settled: the server's process used under 5 ms of CPU in 250 ms
 * and no other PostgreSQL session of this database is active, or 60 s have passed (reported).
 */
async function settle(server) {
  const pg = database === 'postgres' ? requireFromServer('pg') : undefined;
  const client = pg && new pg.Client({ connectionString: postgresServerUrl });
  await client?.connect();
  try {
    const until = performance.now() + 60_000;
    while (performance.now() < until) {
      const cpu = cpuSeconds(server.pid);
      await delay(250);
      const busy = cpuSeconds(server.pid) - cpu >= 0.005;
      const active = client
        ? Number(
            (
              await client.query(
                "select count(*) as n from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and datname = current_database()",
              )
            ).rows[0].n,
          )
        : 0;
      if (!busy && active === 0) return;
    }
    unsettled.push(server.url);
  } finally {
    await client?.end();
  }
}

/** Servers that were still busy 60 s after a measurement (`settle`), for the report. */
const unsettled = [];
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
  const measurements = { ours: [], same: [], straightforward: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [name, server] of rotated) {
      if (name === 'straightforward' && round > 0) continue;
      // The references take no credentials; they answer the same URLs without them.
      measurements[name].push(
        await load(server.url, paths, {
          headers: name === 'ours' ? headers : undefined,
          watch: [server.pid],
          slowest: name === 'ours' ? 3 : 0,
        }),
      );
      await settle(server);
    }
  }
  for (const [name, list] of Object.entries(measurements)) {
    row[name] = [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)];
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
    ['distinct: search page one', families.searchPageOne],
    ['distinct: search deep pages', families.searchDeep],
    ['distinct: search with a filter', families.searchFiltered],
    ...(facetsBroken ? [] : [['distinct: facets in context', families.facetsInContext]]),
  ]) {
    if (urls.length >= 4_000) await measured(kind, urls)();
    else console.error(`${kind}: only ${urls.length} URLs in this catalogue, measured within the whole mix only`);
  }
  // The release list's families (the facets have their row above).
  const { facetsInContext: _facets, ...lists } = families;
  await measured('distinct: whole mix', interleave(Object.values(lists)))();
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

// --- compression (SPEC §10): a 100-release page in Brotli, gzip and as is -------------------------------------------
// Ours only (the references do not compress). Answered from memory: a few URLs rotated. First requests (--distinct):
// walks at limit 100, thousands of pages, far more than the answer cache holds by size (8 M characters, about 130
// such pages), so nearly every one is read from the database, then compressed.
const compression = [];
{
  const urls = distinct
    ? [...(await walk(ours.url, 'limit=100', 1000)), ...(await walk(ours.url, 'limit=100&sort=release_date', 1000))]
    : [
        '/api/v1/release?limit=100',
        '/api/v1/release?limit=100&sort=release_date',
        `/api/v1/release?genres=${enc(broadGenres[0])}&limit=100`,
        '/api/v1/release?q=love&limit=100',
      ];
  for (const coding of ['br', 'gzip', 'none']) {
    const headers = coding === 'none' ? {} : { 'accept-encoding': coding };
    compression.push({ coding, urls: urls.length, ...(await load(ours.url, urls, { headers, watch: [ours.pid] })) });
    console.error(`measured compression: ${coding}`);
  }
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

// --- the catalogue's size on disk ------------------------------------------------------------------------------------
const megabytes = (bytes) => Number((bytes / 2 ** 20).toFixed(0));
const mb = (bytes) => `${megabytes(bytes)} MB`;
let sizeOnDisk;
/** The same sizes as numbers (MB), for bench/history.jsonl: the total, and the three tables with their indexes. */
let sizeOnDiskMB;
let tableSizesMB = null;
if (database === 'sqlite') {
  const file = (suffix) =>
    existsSync(`${referenceDatabase}${suffix}`) ? statSync(`${referenceDatabase}${suffix}`).size : 0;
  const Database = requireFromServer('better-sqlite3');
  const db = new Database(referenceDatabase, { readonly: true });
  let tables = '';
  try {
    // dbstat: each table's and index's pages (when SQLite was built with it).
    const sizes = db
      .prepare(
        "select coalesce(i.tbl_name, d.name) as tbl, sum(d.pgsize) as bytes from dbstat d left join sqlite_master i on i.name = d.name and i.type = 'index' group by tbl order by bytes desc",
      )
      .all();
    const kept = sizes.filter((row) => ['releases', 'release_tags', 'facet_values'].includes(row.tbl));
    tables = `; ${kept.map((row) => `${row.tbl} ${mb(row.bytes)} with its indexes`).join(', ')}`;
    tableSizesMB = Object.fromEntries(kept.map((row) => [row.tbl, megabytes(row.bytes)]));
  } catch {
    // no dbstat
  }
  db.close();
  sizeOnDisk = `SQLite file ${mb(file('') + file('-wal'))}${tables}`;
  sizeOnDiskMB = megabytes(file('') + file('-wal'));
} else {
  const pg = requireFromServer('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const schema = postgresCatalogueSchema(rows);
  const size = async (table) =>
    Number((await client.query('select pg_total_relation_size($1::regclass) as n', [`${schema}.${table}`])).rows[0].n);
  const all = Number(
    (
      await client.query(
        'select sum(pg_total_relation_size(c.oid)) as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind in ($2, $3)',
        [schema, 'r', 'm'],
      )
    ).rows[0].n,
  );
  tableSizesMB = {
    release_tags: megabytes(await size('release_tags')),
    releases: megabytes(await size('releases')),
    facet_values: megabytes(await size('facet_values')),
  };
  sizeOnDisk = `PostgreSQL (pg_total_relation_size, with indexes and TOAST) release_tags ${tableSizesMB.release_tags} MB, releases ${tableSizesMB.releases} MB, facet_values ${tableSizesMB.facet_values} MB, the schema ${mb(all)}`;
  sizeOnDiskMB = megabytes(all);
  await client.end();
}

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
/** A p99 target over the kinds `which` selects, naming the slowest. */
function p99Target(label, ms, which) {
  const rows = results.filter(which);
  if (rows.length === 0) return [];
  const worst = rows.reduce((a, b) => (b.ours.p99 > a.ours.p99 ? b : a));
  return [
    [
      `p99 <= ${ms} ms on ${label} (highest ${fmt(worst.ours.p99)} ms, ${worst.kind})`,
      rows.every((r) => r.ours.p99 <= ms),
    ],
  ];
}
// First requests meet the database every time: the target is the same SQL without the framework, within 10 %.
const sameTarget = distinct ? 0.9 : database === 'sqlite' ? 1.0 : 0.9;
const targets = [
  [
    `ours / same-SQL >= ${sameTarget} on every request kind (lowest ${fmt(Math.min(...results.map((r) => r.ratioSame)))})`,
    results.every((r) => r.ratioSame >= sameTarget),
  ],
  ...p99Target(
    'every request kind without search or facets',
    15,
    (r) => !isSearchKind(r.kind) && !isFacetsKind(r.kind),
  ),
  // SPEC §3.6: any q, alone or with filters, page one and deep pages; facets in context uncached (--distinct).
  ...p99Target('every search kind (and the whole mix)', 20, (r) => isSearchKind(r.kind)),
  ...p99Target(`facets in context${distinct ? ' (first requests)' : ' (answered from memory)'}`, 50, (r) =>
    isFacetsKind(r.kind),
  ),
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
const stolenSorted = [...stolen].sort((a, b) => a - b);
const percent = (share) => `${fmt(share * 100, 0)} %`;
const stolenLine = stolenSorted.length
  ? `CPU time the hypervisor gave to other guests during the measurements (\`steal\` in /proc/stat): median ${percent(stolenSorted[Math.floor(stolenSorted.length / 2)])}, highest ${percent(stolenSorted.at(-1))} of one measurement.`
  : undefined;
const compressionLines = [
  `A 100-release page by \`Accept-Encoding\`, ours only, ${distinct ? `first requests (${compression[0].urls} distinct URLs)` : `answered from memory (${compression[0].urls} URLs rotated)`}:`,
  '',
  '| Accept-Encoding | bytes per answer | req/s | p50 ms | p99 ms | CPU µs/req |',
  '|---|---:|---:|---:|---:|---:|',
  ...compression.map(
    (r) =>
      `| ${r.coding} | ${fmt(r.bytes, 0)} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(cpuPerRequest(r), 0)} |`,
  ),
];
// Where the p99 of first requests comes from: each kind's slowest requests under load (queueing included).
const slowestLines = distinct
  ? [
      "Each kind's three slowest requests to ours under load (ms, waiting behind other requests included):",
      '',
      ...results.map(
        (r) =>
          `- ${r.kind}: ${r.ours.slowest.map((s) => `\`${decodeURI(s.path).replace(/cursor=[^&]+/, 'cursor=…')}\` ${fmt(s.ms, 0)}`).join('; ')}`,
      ),
      '',
    ]
  : [];
const probeLine = facetsProbed.length
  ? [
      `Facets in context alone (one request at a time, each a first request, on an instance of its own once warmed up): ${facetsProbed.map((p) => `\`${decodeURI(p.url.replace('/api/v1/facets', ''))}\` ${fmt(p.ms, 0)} ms`).join(', ')}.`,
      '',
    ]
  : [];
const afterIdleLine = distinct
  ? undefined
  : `After ${idleSeconds} s idle, whole mix three times: ${afterIdle.map((r) => `${fmt(r.rps, 0)} req/s p99 ${fmt(r.p99)} ms${r.stolen === undefined ? '' : ` (${percent(r.stolen)} stolen)`}`).join('; ')}.`;
const report = [
  `Catalogue: ${rows.toLocaleString('en-US')} synthetic releases (seed ${seed}), ${database === 'sqlite' ? 'SQLite file' : 'PostgreSQL'}${seeded.seconds ? `, seeded in ${fmt(seeded.seconds, 0)} s` : ''}. ${connections} keep-alive connections, ${durationMs / 1000} s per measurement after 1 s warm-up; ours and same-SQL ${rounds === 1 ? 'measured once each' : `in ${rounds} alternating rounds, each server's figures from its median round by req/s`}.`,
  `Size on disk: ${sizeOnDisk}.`,
  `Machine: ${machine}.`,
  ...(stolenLine ? [stolenLine] : []),
  `Checked before measuring: ${checked}.`,
  '',
  ...table,
  '',
  ...slowestLines,
  ...probeLine,
  ...compressionLines,
  '',
  ...(afterIdleLine ? [afterIdleLine] : []),
  ...scalingLines,
  '',
  ...targets.map(([text, ok]) => `- ${ok ? 'met' : 'MISSED'}: ${text}`),
  ...(facetsBroken ? [`- MISSED: facets in context: ${facetsBroken}`] : []),
  ...checkNotes.map((note) => `- note: before measuring, ${note}`),
  ...failures.map((f) => `- ERROR: ${f}`),
  ...referenceTrouble.map((f) => `- note: ${f}`),
  ...unsettled.map(
    (url) =>
      `- note: ${url} was still busy 60 s after its load stopped; the next measurement shared the machine with it`,
  ),
].join('\n');
console.log(report);

if (flag('record')) {
  const title = `${rows.toLocaleString('en-US')} releases, ${database === 'sqlite' ? 'SQLite' : 'PostgreSQL'}${instances === 2 && !distinct ? ', one and two instances' : ''}${distinct ? ', distinct URLs (first requests)' : ''}${rounds > 1 ? `, ${rounds} rounds` : ''}`;
  /** The figures as the entry above prints them (its rounding), for bench/history.jsonl; null where it says n/a. */
  const shown = (n, digits) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);
  const git = (...gitArgs) => {
    try {
      return execFileSync('git', gitArgs, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    } catch {
      return undefined;
    }
  };
  const commit = git('rev-parse', '--short', 'HEAD') ?? null;
  const dirty = commit !== null && git('status', '--porcelain') !== '';
  const median = (list) => (list.length ? list[Math.floor(list.length / 2)] : undefined);
  const entry = {
    date: new Date().toISOString().slice(0, 10),
    title,
    commit,
    ...(dirty ? { dirty: true } : {}),
    db: database,
    rows,
    mode: distinct ? 'distinct' : 'repeated',
    instances: scaling ? 2 : 1,
    variant: null,
    rounds,
    seed,
    connections,
    durationSeconds: durationMs / 1000,
    warmupSeconds: 1,
    idleSeconds: distinct ? null : idleSeconds,
    machine,
    steal: stolenSorted.length
      ? { median: shown(median(stolenSorted) * 100, 0), highest: shown(stolenSorted.at(-1) * 100, 0) }
      : null,
    seedSeconds: seeded.seconds ? shown(seeded.seconds, 0) : null,
    sizeOnDiskMB,
    tableSizesMB,
    peakMemoryMB: { anonymous: shown(peakRss, 0), resident: shown(peakRssTotal, 0) },
    kinds: results.map((r) => ({
      kind: r.kind,
      urls: r.urls,
      ours: {
        rps: shown(r.ours.rps, 0),
        p50: shown(r.ours.p50, 2),
        p99: shown(r.ours.p99, 2),
        cpuUs: shown(cpuPerRequest(r.ours), 0),
      },
      sameSql: { rps: shown(r.same.rps, 0), p99: shown(r.same.p99, 2) },
      straightforward: { rps: shown(r.straightforward.rps, 0), p99: shown(r.straightforward.p99, 2) },
      vsSameSql: shown(r.ratioSame, 2),
      vsStraightforward: shown(r.ratioStraightforward, 2),
    })),
    checks: [
      ...targets.map(([text, ok]) => ({ met: ok, text })),
      ...(facetsBroken ? [{ met: false, text: `facets in context: ${facetsBroken}` }] : []),
    ],
    notes: [
      ...checkNotes.map((note) => `before measuring, ${note}`),
      ...referenceTrouble,
      ...unsettled.map(
        (url) => `${url} was still busy 60 s after its load stopped; the next measurement shared the machine with it`,
      ),
    ],
    errors: failures,
    // The rest of the entry as it prints it (Markdown), each part under its own key.
    extra: {
      sizeOnDisk,
      checked,
      ...(slowestLines.length ? { slowest: slowestLines.join('\n').trim() } : {}),
      ...(probeLine.length ? { facetsAlone: probeLine.join('\n').trim() } : {}),
      compression: compressionLines.join('\n'),
      ...(afterIdleLine ? { afterIdle: afterIdleLine } : {}),
      ...(scalingLines.length ? { instances: scalingLines.join('\n').trim() } : {}),
    },
  };
  const history = existsSync(historyFile) ? readFileSync(historyFile, 'utf8') : '';
  appendFileSync(historyFile, `${history === '' || history.endsWith('\n') ? '' : '\n'}${JSON.stringify(entry)}\n`);
  console.error(`recorded in ${path.relative(root, historyFile)}`);
  const written = writeReport();
  console.error(`regenerated ${path.relative(root, written.results)} and ${path.relative(root, written.svg)}`);
}
process.exit(failures.length > 0 ? 1 : 0);
