// The references for `pnpm bench`: bare node:http servers (no framework, no middleware, no logging) answering
// the release list and the facets on the same database as the real server, so the table can separate two costs:
//
//   --sql same             exactly our storage's SQL: the list's built by the server's own `buildReleasePageQuery`
//                          with the same planner statistics (the filters' counts read once, a search's key counts
//                          read from `facet_values` on every request, as ours does), under sort=relevance one query
//                          per tier from the cursor's, as `queryPage` runs them; the page assembled from stored JSON
//                          as ours is. The facets in context are our storage's own reads (`KyselyCatalogueReads`
//                          over this bare driver: its passes, its parts on SQLite, its caches). Ours vs this is the
//                          cost (or gain) of everything around the query. It answers every URL exactly as ours does
//                          (the same ids in the same order, the same cursors, the same counts): `pnpm bench` checks
//                          that before it measures.
//   --sql straightforward  the query most hand-written implementations would send: filters as EXISTS clauses, each
//                          search term as `lower(title) LIKE '%term%' OR lower(artist) LIKE '%term%'` (AND-ed), the
//                          relevance tiers as a CASE expression ordered before the date, and the planner left to
//                          walk the date index (or scan); each stored document parsed and re-serialized; facets in
//                          context counted with GROUP BY over the same conditions. Ours vs this is what query
//                          planning and storage layout buy. Its search results differ slightly from ours (a
//                          substring anywhere, not a word's beginning; no NFKC, no diacritics).
//
// Both verify and sign cursors exactly as the real server does (HMAC, same secret, same fingerprint with the
// search, the relevance tier as a fifth element), so cursors collected from any server work on all three.
// SQLite's prepared statements are reused, as ours reuses them; PostgreSQL's are unnamed, as ours sends them. Each
// compiled list query is memoized per distinct request (and tier), so the references pay for running SQL, not for
// building it (the facets excepted: ours' code compiles them each time).
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
const serverModule = (file) => import(pathToFileURL(path.join(serverRoot, 'dist', file)).href);

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

const filterNames = ['vocaloid_banks', 'genres', 'languages'];
const kinds = { vocaloid_banks: 1, genres: 2, languages: 3 };
const filterKinds = Object.values(kinds);
const searchKindList = [4, 5, 6];
const relevanceTiers = 4;
const postgres = /^postgres(ql)?:\/\//.test(database);

// Search text as ours parses it: for the `same` SQL, and for the cursor's fingerprint in both (so cursors stay
// interchangeable between the three servers).
const { parseSearch } = await serverModule('catalogue/search-text.js');

// --- the database: `all(sql, parameters)` with statements prepared once per text ---------------------------
let all;
let close;
if (postgres) {
  const pg = requireFromServer('pg');
  const pool = new pg.Pool({ connectionString: database, max: 10 });
  // Unnamed statements, as ours sends them (Kysely's pg driver): planned for each execution's values. A named
  // statement would get PostgreSQL's generic plan after its fifth execution, which for the search's queries is
  // sometimes a hundred times faster or slower than the plan ours gets: it would measure another plan.
  all = async (sql, parameters) => (await pool.query(sql, parameters)).rows;
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

// The whole catalogue's facets, as ours keeps them (same SQL, same order), and each value's display spelling.
const wholeFacetRows = await all(
  `select kind, value_key, display, release_count from facet_values where kind in (${filterKinds.join(', ')}) and release_count > 0 order by release_count desc, value_key asc`,
  [],
);
const wholeFacets = Object.fromEntries(
  filterNames.map((name) => [
    name,
    wholeFacetRows
      .filter((row) => row.kind === kinds[name])
      .map((row) => ({ key: row.value_key, value: row.display, count: Number(row.release_count) })),
  ]),
);
const wholeTotal = Number((await all('select count(*) as n from releases', []))[0].n);
const display = new Map(wholeFacetRows.map((row) => [`${row.kind}:${row.value_key}`, row.display]));

// --- the two ways of building the SQL -------------------------------------------------------------------------
const placeholder = postgres ? (n) => `$${n}` : () => '?';

/** `text` as a LIKE pattern's literal part. */
const likeLiteral = (text) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The search as a straightforward implementation reads it: lower-cased, split on whitespace. */
const straightforwardTerms = (q) => [...new Set(q.toLowerCase().split(/\s+/u).filter(Boolean))];

/**
 * The straightforward WHERE: filters as EXISTS clauses (all but `exceptKind`), each term as a substring of the
 * lower-cased title or artist.
 */
function straightforwardWhere(query, next, exceptKind) {
  const where = [];
  for (const name of filterNames) {
    const keys = query.filters[name];
    if (keys.length === 0 || kinds[name] === exceptKind) continue;
    const clause = `exists (select 1 from release_tags t where t.release_id = r.id and t.kind = ${next(kinds[name])}`;
    where.push(`${clause} and t.value_key in (${keys.map((key) => next(key)).join(',')}))`);
  }
  for (const term of query.q === undefined ? [] : straightforwardTerms(query.q)) {
    const pattern = `%${likeLiteral(term)}%`;
    where.push(
      `(lower(r.title) like ${next(pattern)} escape '\\' or lower(r.artist) like ${next(pattern)} escape '\\')`,
    );
  }
  return where;
}

function parameterList() {
  const parameters = [];
  const next = (value) => {
    parameters.push(value);
    return placeholder(parameters.length);
  };
  return { parameters, next };
}

/**
 * One query for the whole page: the date index walked (or the table scanned), each release tested; under
 * relevance, the tier as a CASE expression, ordered first.
 */
function straightforwardQuery(query, after) {
  const { parameters, next } = parameterList();
  const fetch = query.limit + 1;
  // Parameters in the order their placeholders appear (SQLite's `?` are positional).
  if (query.sort === 'relevance') {
    const q = query.q.toLowerCase();
    const terms = straightforwardTerms(query.q);
    const tier = `case when lower(r.title) = ${next(q)} then 0 when lower(r.title) like ${next(`${likeLiteral(q)}%`)} escape '\\' then 1 when ${terms.map((term) => `lower(r.title) like ${next(`%${likeLiteral(term)}%`)} escape '\\'`).join(' and ')} then 2 else 3 end`;
    const where = straightforwardWhere(query, next);
    const position = after
      ? `where s.tier > ${next(after.tier ?? 0)} or (s.tier = ${next(after.tier ?? 0)} and (s.release_date, s.id) < (${next(after.releaseDate)}, ${next(after.id)}))`
      : '';
    const sql = `select s.id, s.release_date, s.doc, s.tier from (
      select r.id, r.release_date, r.doc, ${tier} as tier from releases r ${where.length ? `where ${where.join(' and ')}` : ''}
    ) s ${position} order by s.tier, s.release_date desc, s.id desc limit ${next(fetch)}`;
    return [{ sql, parameters }];
  }
  const where = straightforwardWhere(query, next);
  const descending = query.sort === '-release_date';
  if (after)
    where.push(`(r.release_date, r.id) ${descending ? '<' : '>'} (${next(after.releaseDate)}, ${next(after.id)})`);
  const direction = descending ? 'desc' : 'asc';
  const sql = `select r.id, r.release_date, r.doc from releases r ${where.length ? `where ${where.join(' and ')}` : ''}
    order by r.release_date ${direction}, r.id ${direction} limit ${next(fetch)}`;
  return [{ sql, parameters }];
}

/**
 * Facets in context, straightforwardly: per filter, GROUP BY over the releases meeting the other conditions; then
 * a count of those meeting them all.
 */
function straightforwardFacetQueries(query) {
  const passes = filterNames.map((name) => {
    const { parameters, next } = parameterList();
    const kind = next(kinds[name]);
    const where = straightforwardWhere(query, next, kinds[name]);
    const sql = `select f.value_key, count(*) as n from releases r join release_tags f on f.release_id = r.id and f.kind = ${kind}
      ${where.length ? `where ${where.join(' and ')}` : ''} group by f.value_key`;
    return { name, query: { sql, parameters } };
  });
  const { parameters, next } = parameterList();
  const where = straightforwardWhere(query, next);
  const total = {
    sql: `select count(*) as n from releases r ${where.length ? `where ${where.join(' and ')}` : ''}`,
    parameters,
  };
  return { passes, total };
}

/** Our storage's own query builders, compiled by Kysely for the dialect with the statistics ours plans with. */
async function sameQueryBuilders() {
  const kysely = await import(pathToFileURL(requireFromServer.resolve('kysely')).href);
  const { buildReleasePageQuery, searchKeys } = await serverModule('db/catalogue/page-query.js');
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
  // The filters' counts, as ours keeps them (`tagStatistics`: kinds 1-3 only).
  const stats = new Map();
  for (const row of await all(
    `select kind, value_key, release_count from facet_values where kind in (${filterKinds.join(', ')})`,
    [],
  )) {
    if (!stats.has(row.kind)) stats.set(row.kind, new Map());
    stats.get(row.kind).set(row.value_key, Number(row.release_count));
  }
  const compile = (builder) => {
    const compiled = builder.compile(compiler);
    return { sql: compiled.sql, parameters: compiled.parameters };
  };
  /** The search keys' counts: read on every request, with the SQL ours sends (`keyCounts`). */
  const countsQueries = new Map();
  async function keyCounts(search) {
    const keys = searchKeys(search);
    const terms = new Map();
    if (keys.length > 0) {
      const distinctKeys = [...new Set(keys.map((k) => k.key))];
      const cacheKey = distinctKeys.join('\u0000');
      let query = countsQueries.get(cacheKey);
      if (!query) {
        query = compile(
          compiler
            .selectFrom('facet_values')
            .select(['kind', 'value_key', 'release_count'])
            .where('kind', 'in', searchKindList)
            .where('value_key', 'in', distinctKeys),
        );
        if (countsQueries.size > 50_000) countsQueries.clear();
        countsQueries.set(cacheKey, query);
      }
      for (const row of await all(query.sql, query.parameters))
        terms.set(`${row.kind}:${row.value_key}`, Number(row.release_count));
    }
    return (kind, key) => (filterKinds.includes(kind) ? stats.get(kind)?.get(key) : terms.get(`${kind}:${key}`)) ?? 0;
  }
  // The facets in context: our storage's own reads (`KyselyCatalogueReads.facets`: its passes, its parts on
  // SQLite, its caches of the whole catalogue's facets and of the filters' counts) over this bare driver.
  const { KyselyCatalogueReads, CatalogueCache } = await serverModule('db/catalogue/catalogue-reads.js');
  const backend = {
    dialect: postgres ? 'postgres' : 'sqlite',
    synchronousReads: !postgres,
    db: compiler,
    read: (query) => all(query.sql, query.parameters),
    // The catalogue does not change during a run.
    changeCounter: () => 1,
    isBusy: () => false,
    busyWaitMs: 0,
    translateError: (error) => error,
    // Our storage counts each answered and unanswered call for its outage log; nothing to log here.
    outages: { answered: () => undefined, failed: () => undefined },
  };
  const reads = new KyselyCatalogueReads(backend, new CatalogueCache(), { index: true });
  // As ours does at start: the catalogue read into memory in the background (`CatalogueIndex`), where the facets
  // in context are counted from then on. (Its pages stay this reference's SQL: `page` below.)
  void reads.warmUp();
  return {
    keyCounts,
    facets: (catalogueQuery) => reads.facets(catalogueQuery),
    page: (request, counts) => {
      const builder = buildReleasePageQuery(request, counts);
      return builder ? compile(builder) : undefined;
    },
  };
}

const same = mode === 'same' ? await sameQueryBuilders() : undefined;
/** Compiled SQL per request (and tier, and rows still wanted), bounded. */
const compiled = new Map();
function memoized(key, build) {
  let value = compiled.get(key);
  if (value === undefined && !compiled.has(key)) {
    if (compiled.size > 200_000) compiled.clear();
    compiled.set(key, (value = build()));
  }
  return value;
}

// --- cursors, exactly as the real server makes them ------------------------------------------------------------
function decodeCursor(cursor) {
  const [payload, mac] = cursor.split('.');
  const expected = Buffer.from(
    createHmac('sha256', secret).update(payload).digest().subarray(0, 16).toString('base64url'),
  );
  const given = Buffer.from(mac ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [, , releaseDate, id, tier] = JSON.parse(Buffer.from(payload, 'base64url').toString());
  return { tier, releaseDate, id };
}

function fingerprint(query) {
  const canonical = JSON.stringify([
    query.sort,
    ...filterNames.map((name) => [...query.filters[name]].sort()),
    ...(query.search === undefined ? [] : [query.search.text]),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 11);
}

function encodeCursor(row, fp) {
  const fields = [1, fp, row.release_date, row.id];
  if (row.tier !== undefined) fields.push(Number(row.tier));
  const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(payload).digest().subarray(0, 16).toString('base64url')}`;
}

function values(params, name) {
  const out = [];
  for (const raw of params.getAll(name))
    for (const item of raw.split(',')) if (item.trim()) out.push(item.trim().toLowerCase());
  return [...new Set(out)];
}

/** The filters and `q` of a query string, as ours normalises them. */
function catalogueQuery(params) {
  const filters = Object.fromEntries(filterNames.map((name) => [name, values(params, name)]));
  const q = params.get('q')?.trim() || undefined;
  return { filters, q, search: q === undefined ? undefined : parseSearch(q) };
}

const problem = (res, status, title) =>
  res.writeHead(status, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ title }));

/** The rows of one page (and one more, when there is a next), each with its tier under relevance. */
async function pageRows(url, query, after) {
  if (mode === 'straightforward') {
    const [statement] = memoized(url.search, () => straightforwardQuery(query, after));
    return all(statement.sql, statement.parameters);
  }
  const counts = await same.keyCounts(query.search);
  const request = { filters: query.filters, search: query.search, sort: query.sort, limit: query.limit, after };
  const rows = [];
  if (query.sort === 'relevance' && query.search) {
    // As `queryPage`: one query per tier, from the cursor's, until the page (and one more) is full.
    for (let tier = after?.tier ?? 0; tier < relevanceTiers && rows.length <= query.limit; tier++) {
      const remaining = query.limit - rows.length;
      const statement = memoized(`${url.search}\u0000${tier}\u0000${remaining}`, () =>
        same.page({ ...request, limit: remaining, tier }, counts),
      );
      if (!statement) break;
      for (const row of await all(statement.sql, statement.parameters)) rows.push({ ...row, tier });
    }
    return rows;
  }
  const statement = memoized(url.search, () => same.page(request, counts));
  return statement ? all(statement.sql, statement.parameters) : [];
}

async function listReleases(url, res) {
  const params = url.searchParams;
  const query = catalogueQuery(params);
  query.limit = Math.min(100, Math.max(1, Number(params.get('limit') ?? 20) || 20));
  const sort = params.get('sort') ?? (query.q === undefined ? '-release_date' : 'relevance');
  if (sort === 'relevance' && query.q === undefined) return problem(res, 400, 'relevance needs a search (q)');
  query.sort = ['release_date', 'relevance'].includes(sort) ? sort : '-release_date';
  const cursor = params.get('cursor');
  let after;
  if (cursor) {
    after = decodeCursor(cursor);
    if (!after) return problem(res, 400, 'Invalid cursor');
  }
  const rows = await pageRows(url, query, after);
  const page = rows.slice(0, query.limit);
  const next = rows.length > query.limit ? encodeCursor(page[page.length - 1], fingerprint(query)) : '';
  const releases =
    mode === 'same'
      ? page.map((row) => row.doc).join(',')
      : page.map((row) => JSON.stringify(JSON.parse(row.doc))).join(',');
  const body = `{"success":true,"data":{"releases":[${releases}],"pagination":${JSON.stringify(next)},"generated_at":"${new Date().toISOString()}"}}`;
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) };
  if (next) headers.link = `<http://localhost${url.pathname}?cursor=${next}>; rel="next"`;
  res.writeHead(200, headers).end(body);
}

/** Each filter's counts over the releases matching the query and the other filters, and the total (SPEC §3.6). */
async function facets(url, res) {
  const query = catalogueQuery(url.searchParams);
  const narrowed = filterNames.some((name) => query.filters[name].length > 0) || query.search;
  const data = {};
  if (!narrowed) {
    for (const name of filterNames) data[name] = wholeFacets[name].map(({ value, count }) => ({ value, count }));
    data.total = wholeTotal;
  } else if (mode === 'same') {
    Object.assign(data, await same.facets({ filters: query.filters, search: query.search }));
  } else {
    const statements = memoized(`facets${url.search}`, () => straightforwardFacetQueries(query));
    const counted = Object.fromEntries(filterNames.map((name) => [name, new Map()]));
    const [total] = await Promise.all([
      all(statements.total.sql, statements.total.parameters).then((rows) => Number(rows[0]?.n ?? 0)),
      ...statements.passes.map(async ({ name, query: statement }) => {
        for (const row of await all(statement.sql, statement.parameters))
          counted[name].set(row.value_key, Number(row.n));
      }),
    ]);
    for (const name of filterNames) {
      const listed = [...counted[name]]
        .filter(([, count]) => count > 0)
        .map(([key, count]) => ({ key, value: display.get(`${kinds[name]}:${key}`) ?? key, count }))
        .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const key of query.filters[name]) {
        if (!counted[name].get(key)) listed.push({ key, value: display.get(`${kinds[name]}:${key}`) ?? key, count: 0 });
      }
      data[name] = listed.map(({ value, count }) => ({ value, count }));
    }
    data.total = total;
  }
  const json = JSON.stringify({ success: true, data });
  const body = `${json.slice(0, -2)},"generated_at":"${new Date().toISOString()}"}}`;
  res
    .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
    .end(body);
}

async function answer(req, res) {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname === '/api/v1/release') return listReleases(url, res);
  if (url.pathname === '/api/v1/facets') return facets(url, res);
  res.writeHead(404).end();
}

const server = createServer((req, res) => {
  answer(req, res).catch((error) => {
    if (process.env.BENCH_DEBUG) console.error(error);
    res.writeHead(500).end(String(error?.message ?? error));
  });
}).listen(port, '127.0.0.1', () => process.send?.('ready'));

process.on('SIGTERM', () => server.close(() => void close().then(() => process.exit(0))));
