// The references for `pnpm bench`: bare node:http servers (no framework, no middleware, no logging) answering
// the release list on the same database as the real server, so the table can separate two costs:
//
//   --sql same             exactly our storage's SQL (built by the server's own `buildReleasePageQuery`, with the
//                          same planner statistics), run on every request, with the page assembled from stored
//                          JSON as ours is. Ours vs this is the cost (or gain) of everything around the query.
//   --sql straightforward  the query most hand-written implementations would send: filters as EXISTS clauses and
//                          the planner left to walk the date index; each stored document parsed and re-serialized.
//                          Ours vs this is what query planning and storage layout buy.
//
// Both verify and sign cursors exactly as the real server does (HMAC, same secret, same fingerprint), so cursors
// collected from either server work on all three. Prepared statements are reused; each compiled query text is
// memoized per distinct request, so the references pay for running SQL, not for building it.
//
//   node reference-server.mjs --sql same|straightforward --db <sqlite file | postgres URL> --port N
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const serverRoot = path.resolve(here, '../apps/server');
// The server package's own dependencies (pnpm does not hoist them to the root).
const requireFromServer = createRequire(path.join(serverRoot, 'package.json'));

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(`--${name}`);
  if (at === -1 || args[at + 1] === undefined) throw new Error(`--${name} is required`);
  return args[at + 1];
};
const mode = option('sql');
const database = option('db');
const port = Number(option('port'));
if (mode !== 'same' && mode !== 'straightforward') throw new Error(`--sql must be same or straightforward`);

const kinds = { vocaloid_banks: 1, genres: 2, languages: 3 };
const postgres = /^postgres(ql)?:\/\//.test(database);

// --- the database: `all(sql, parameters)` with statements prepared once per text ---------------------------
let all;
let close;
if (postgres) {
  const pg = requireFromServer('pg');
  const pool = new pg.Pool({ connectionString: database, max: 10 });
  const names = new Map();
  all = async (sql, parameters) => {
    let name = names.get(sql);
    if (!name) names.set(sql, (name = `q${names.size}`));
    return (await pool.query({ name, text: sql, values: parameters })).rows;
  };
  close = () => pool.end();
} else {
  const Database = requireFromServer('better-sqlite3');
  const db = new Database(database, { readonly: true });
  db.pragma('cache_size = -65536');
  const statements = new Map();
  all = async (sql, parameters) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement.all(...parameters);
  };
  close = async () => db.close();
}

const secret = (await all("select value from server_secrets where name = 'cursor'", []))[0]?.value;
if (!secret) throw new Error('no cursor secret in the database: start the real server on it once first');

// --- the two ways of building a page's SQL -------------------------------------------------------------------
const placeholder = postgres ? (n) => `$${n}` : () => '?';

/** Filters as EXISTS clauses; the planner walks the date index and tests each release. */
function straightforwardQuery(filters, sort, limit, after) {
  const descending = sort === '-release_date';
  const where = [];
  const parameters = [];
  const next = () => placeholder(parameters.length + 1);
  for (const [name, keys] of Object.entries(filters)) {
    if (keys.length === 0) continue;
    let clause = `exists (select 1 from release_tags t where t.release_id = r.id and t.kind = ${next()}`;
    parameters.push(kinds[name]);
    const list = keys.map((key) => {
      const p = next();
      parameters.push(key);
      return p;
    });
    where.push(`${clause} and t.value_key in (${list.join(',')}))`);
  }
  if (after) {
    const a = next();
    parameters.push(after.releaseDate);
    const b = next();
    parameters.push(after.id);
    where.push(`(r.release_date, r.id) ${descending ? '<' : '>'} (${a}, ${b})`);
  }
  const direction = descending ? 'desc' : 'asc';
  const limitParameter = next();
  parameters.push(limit + 1);
  const sql = `select r.id, r.release_date, r.doc from releases r ${where.length ? `where ${where.join(' and ')}` : ''}
    order by r.release_date ${direction}, r.id ${direction} limit ${limitParameter}`;
  return { sql, parameters };
}

/** Our storage's own query builder, compiled by Kysely for the dialect with the statistics ours plans with. */
async function sameQueryBuilder() {
  const kysely = await import(pathToFileURL(requireFromServer.resolve('kysely')).href);
  const { buildReleasePageQuery } = await import(
    pathToFileURL(path.join(serverRoot, 'dist/storage/release-query.js')).href
  );
  const dialect = postgres
    ? {
        Adapter: kysely.PostgresAdapter,
        Compiler: kysely.PostgresQueryCompiler,
        Introspector: kysely.PostgresIntrospector,
      }
    : { Adapter: kysely.SqliteAdapter, Compiler: kysely.SqliteQueryCompiler, Introspector: kysely.SqliteIntrospector };
  const compiler = new kysely.Kysely({
    dialect: {
      createAdapter: () => new dialect.Adapter(),
      createDriver: () => new kysely.DummyDriver(),
      createIntrospector: (db) => new dialect.Introspector(db),
      createQueryCompiler: () => new dialect.Compiler(),
    },
  });
  const stats = new Map();
  for (const row of await all('select kind, value_key, release_count from facet_values', [])) {
    if (!stats.has(row.kind)) stats.set(row.kind, new Map());
    stats.get(row.kind).set(row.value_key, Number(row.release_count));
  }
  return (filters, sort, limit, after) => {
    const compiled = buildReleasePageQuery({ filters, sort, limit, after }, stats).compile(compiler);
    return { sql: compiled.sql, parameters: compiled.parameters };
  };
}

const buildQuery = mode === 'same' ? await sameQueryBuilder() : straightforwardQuery;
const compiledByRequest = new Map();

// --- cursors, exactly as the real server makes them ------------------------------------------------------------
function decodeCursor(cursor) {
  const [payload, mac] = cursor.split('.');
  const expected = Buffer.from(
    createHmac('sha256', secret).update(payload).digest().subarray(0, 16).toString('base64url'),
  );
  const given = Buffer.from(mac ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [, , releaseDate, id] = JSON.parse(Buffer.from(payload, 'base64url').toString());
  return { releaseDate, id };
}

function fingerprint(filters, sort) {
  const canonical = JSON.stringify([
    sort,
    [...filters.vocaloid_banks].sort(),
    [...filters.genres].sort(),
    [...filters.languages].sort(),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 11);
}

function encodeCursor(row, fp) {
  const payload = Buffer.from(JSON.stringify([1, fp, row.release_date, row.id])).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(payload).digest().subarray(0, 16).toString('base64url')}`;
}

function values(params, name) {
  const out = [];
  for (const raw of params.getAll(name))
    for (const item of raw.split(',')) if (item.trim()) out.push(item.trim().toLowerCase());
  return [...new Set(out)];
}

async function answer(req, res) {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname !== '/api/v1/release') {
    res.writeHead(404).end();
    return;
  }
  const params = url.searchParams;
  const filters = {
    vocaloid_banks: values(params, 'vocaloid_banks'),
    genres: values(params, 'genres'),
    languages: values(params, 'languages'),
  };
  const limit = Math.min(100, Math.max(1, Number(params.get('limit') ?? 20) || 20));
  const sort = params.get('sort') === 'release_date' ? 'release_date' : '-release_date';
  const cursor = params.get('cursor');
  let after;
  if (cursor) {
    after = decodeCursor(cursor);
    if (!after) {
      res.writeHead(400, { 'content-type': 'application/problem+json' }).end('{"title":"Invalid cursor"}');
      return;
    }
  }
  let query = compiledByRequest.get(url.search);
  if (!query) compiledByRequest.set(url.search, (query = buildQuery(filters, sort, limit, after)));
  const rows = await all(query.sql, query.parameters);
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? encodeCursor(page[page.length - 1], fingerprint(filters, sort)) : '';
  const releases =
    mode === 'same'
      ? page.map((row) => row.doc).join(',')
      : page.map((row) => JSON.stringify(JSON.parse(row.doc))).join(',');
  const body = `{"success":true,"data":{"releases":[${releases}],"pagination":${JSON.stringify(next)},"generated_at":"${new Date().toISOString()}"}}`;
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) };
  if (next) headers.link = `<http://localhost${url.pathname}?cursor=${next}>; rel="next"`;
  res.writeHead(200, headers).end(body);
}

const server = createServer((req, res) => {
  answer(req, res).catch((error) => {
    res.writeHead(500).end(String(error?.message ?? error));
  });
}).listen(port, '127.0.0.1', () => process.send?.('ready'));

process.on('SIGTERM', () => server.close(() => void close().then(() => process.exit(0))));
