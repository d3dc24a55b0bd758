// `pnpm bench`: the built server against a bare node:http reference on the same synthetic catalogue.
//
//   pnpm bench                      100,000 releases
//   pnpm bench -- --rows 1000000    a million (or --large)
//   pnpm bench -- --record          also write bench/RESULTS.md
//
// Both servers run as separate processes; the load comes from a third (load.mjs) over loopback.
import { execFileSync, fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const serverDist = path.join(root, 'apps/server/dist');
const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const rows = flag('large') ? 1_000_000 : option('rows', 100_000);
const durationMs = option('duration', 5) * 1000;
const connections = option('connections', 8);
const seed = 42;
/** Bump when the synthetic generator changes, so cached catalogues are rebuilt. */
const generatorVersion = 2;

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitFor(url) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

// --- the catalogue --------------------------------------------------------------------------------------
const work = path.join(here, '.work', String(rows));
mkdirSync(work, { recursive: true });
const databaseFile = path.join(work, 'releases.db');
const marker = path.join(work, 'seeded.json');
const env = { ...process.env, DATABASE_URL: `file:${databaseFile}`, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
const seeded = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : {};
if (seeded.seed !== seed || seeded.generatorVersion !== generatorVersion) {
  console.error(`seeding ${rows.toLocaleString()} synthetic releases (seed ${seed})...`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${databaseFile}${suffix}`, { force: true });
  execFileSync(
    process.execPath,
    [path.join(serverDist, 'cli/main.js'), 'seed', '--synthetic', String(rows), '--seed', String(seed)],
    {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  writeFileSync(marker, JSON.stringify({ rows, seed, generatorVersion }));
}

// --- the two servers --------------------------------------------------------------------------------------
const ourPort = await freePort();
const ours = spawn(process.execPath, [path.join(serverDist, 'main.js')], {
  env: {
    ...env,
    PORT: String(ourPort),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${ourPort}`,
    // Production logging stays on (one JSON line per request), to a sink: the cost is part of the measurement.
    LOG_LEVEL: 'info',
    RATE_LIMIT_ANONYMOUS: '1000000000',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const ourUrl = `http://127.0.0.1:${ourPort}`;
await waitFor(`${ourUrl}/readyz`);

const referencePort = await freePort();
const reference = fork(path.join(here, 'reference-server.mjs'), [databaseFile, String(referencePort)], {
  stdio: 'inherit',
});
const referenceUrl = `http://127.0.0.1:${referencePort}`;
await new Promise((resolve) => reference.once('message', resolve));

const stopAll = () => {
  ours.kill('SIGTERM');
  reference.kill('SIGTERM');
};
process.on('exit', stopAll);

// --- the requests: five kinds, each a rotation of distinct URLs ------------------------------------------
const facets = (await (await fetch(`${ourUrl}/api/v1/facets`)).json()).data;
const enc = encodeURIComponent;
const top = (list, n) => list.slice(0, n).map((f) => f.value);
const broadBanks = top(facets.vocaloid_banks, 4);
const broadGenres = top(facets.genres, 6);
const languages = top(facets.languages, 3);
const rare = facets.vocaloid_banks.filter((f) => f.count > 0 && f.count < 50).map((f) => f.value);
if (rare.length === 0) throw new Error('no voice bank with fewer than 50 releases in this catalogue');

const limits = [10, 20, 20, 25, 50];
const kinds = {
  'no filter': limits.flatMap((limit) => [
    `/api/v1/release?limit=${limit}`,
    `/api/v1/release?limit=${limit}&sort=release_date`,
  ]),
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
      await fetch(`${ourUrl}/api/v1/release?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`)
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

// --- measure ------------------------------------------------------------------------------------------------
function load(baseUrl, paths) {
  const config = { baseUrl, paths, connections, durationMs, warmupMs: 1000, maxRequests: 2_000_000 };
  const output = execFileSync(process.execPath, [path.join(here, 'load.mjs'), JSON.stringify(config)], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(output.toString());
}

const results = [];
let order = 0;
// The whole mix takes the kinds in turn, so every stretch of the run sees all of them.
const interleaved = [];
const longest = Math.max(...Object.values(kinds).map((list) => list.length));
for (let i = 0; i < longest; i++)
  for (const list of Object.values(kinds)) if (i < list.length) interleaved.push(list[i]);
for (const [kind, paths] of [...Object.entries(kinds), ['whole mix', interleaved]]) {
  // Alternate which server goes first, so neither always gets the warmer machine.
  const first = order++ % 2 === 0;
  const a = load(first ? ourUrl : referenceUrl, paths);
  const b = load(first ? referenceUrl : ourUrl, paths);
  const [our, ref] = first ? [a, b] : [b, a];
  results.push({ kind, urls: paths.length, our, ref, ratio: our.rps / ref.rps });
  console.error(`measured ${kind}`);
}
stopAll();

// --- report -------------------------------------------------------------------------------------------------
const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const lines = [
  `| request kind | URLs | ours req/s | ours p50 ms | ours p99 ms | reference req/s | ref p50 ms | ref p99 ms | ratio ours/ref |`,
  `|---|---:|---:|---:|---:|---:|---:|---:|---:|`,
  ...results.map(
    (r) =>
      `| ${r.kind} | ${r.urls} | ${fmt(r.our.rps, 0)} | ${fmt(r.our.p50)} | ${fmt(r.our.p99)} | ${fmt(r.ref.rps, 0)} | ${fmt(r.ref.p50)} | ${fmt(r.ref.p99)} | **${fmt(r.ratio)}** |`,
  ),
];
const failures = results.flatMap((r) => [
  ...(r.our.errors || r.our.non2xx ? [`${r.kind}: ours had ${r.our.errors} errors, ${r.our.non2xx} non-2xx`] : []),
]);
const byKind = Object.fromEntries(results.map((r) => [r.kind, r]));
const deepVsFirst = byKind['deep pages (cursor)'].our.p50 / byKind['no filter'].our.p50;
const targets = [
  [`whole mix ratio >= 1.0`, byKind['whole mix'].ratio >= 1.0],
  [`every kind ratio >= 0.8`, results.every((r) => r.ratio >= 0.8)],
  [`p99 <= 15 ms for every kind (ours)`, results.every((r) => r.our.p99 <= 15)],
  [`deep pages p50 within 1.2x of page one (${fmt(deepVsFirst)}x)`, deepVsFirst <= 1.2],
];
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
const report = [
  `Catalogue: ${rows.toLocaleString('en-US')} synthetic releases (seed ${seed}), SQLite file. ${connections} keep-alive connections, ${durationMs / 1000} s per measurement after 1 s warm-up.`,
  `Machine: ${machine}.`,
  '',
  ...lines,
  '',
  ...targets.map(([text, ok]) => `- ${ok ? 'met' : 'MISSED'}: ${text}`),
  ...failures.map((f) => `- ERROR: ${f}`),
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
  const entry = `## ${new Date().toISOString().slice(0, 10)}: ${rows.toLocaleString('en-US')} releases\n\n${report}\n`;
  writeFileSync(file, [header.trimEnd(), '', entry, ...previous].join('\n'));
  console.error(`recorded in ${path.relative(root, file)}`);
}
process.exit(failures.length > 0 ? 1 : 0);
