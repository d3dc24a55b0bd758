// The reference for `pnpm bench`: a bare node:http server answering the same requests as the real one with
// a straightforward SQL query on the same database file. No framework, no middleware, no logging, prepared
// statements reused; filters are EXISTS clauses and the planner walks the date index, as most hand-written
// implementations would. It verifies cursors the same way (HMAC) so both do the same work per request.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import Database from 'better-sqlite3';

const [, , databaseFile, portText] = process.argv;
const db = new Database(databaseFile, { readonly: true });
const secret = db.prepare("select value from server_secrets where name = 'cursor'").get()?.value;
if (!secret) throw new Error('no cursor secret in the database: start the real server on it once first');

const kinds = { vocaloid_banks: 1, genres: 2, languages: 3 };
const statements = new Map();
const prepare = (sql) => {
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = db.prepare(sql)));
  return statement;
};

function values(params, name) {
  const out = [];
  for (const raw of params.getAll(name))
    for (const item of raw.split(',')) if (item.trim()) out.push(item.trim().toLowerCase());
  return [...new Set(out)];
}

function decodeCursor(cursor) {
  const [payload, mac] = cursor.split('.');
  const expected = createHmac('sha256', secret).update(payload).digest().subarray(0, 16);
  const given = Buffer.from(mac ?? '', 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [, , date, id] = JSON.parse(Buffer.from(payload, 'base64url').toString());
  return { date, id };
}

/** Same binding as the real server, so cursors from either server work on both. */
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

createServer((req, res) => {
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
  const descending = sort === '-release_date';
  const where = [];
  const args = [];
  for (const [name, keys] of Object.entries(filters)) {
    if (keys.length === 0) continue;
    where.push(
      `exists (select 1 from release_tags t where t.release_id = r.id and t.kind = ? and t.value_key in (${keys.map(() => '?').join(',')}))`,
    );
    args.push(kinds[name], ...keys);
  }
  const cursor = params.get('cursor');
  if (cursor) {
    const after = decodeCursor(cursor);
    if (!after) {
      res.writeHead(400, { 'content-type': 'application/problem+json' }).end('{"title":"Invalid cursor"}');
      return;
    }
    where.push(`(r.release_date, r.id) ${descending ? '<' : '>'} (?, ?)`);
    args.push(after.date, after.id);
  }
  const direction = descending ? 'desc' : 'asc';
  const sql = `select r.id, r.release_date, r.doc from releases r ${where.length ? `where ${where.join(' and ')}` : ''}
    order by r.release_date ${direction}, r.id ${direction} limit ?`;
  const rows = prepare(sql).all(...args, limit + 1);
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? encodeCursor(page[page.length - 1], fingerprint(filters, sort)) : '';
  const body = JSON.stringify({
    success: true,
    data: {
      releases: page.map((row) => JSON.parse(row.doc)),
      pagination: next,
      generated_at: new Date().toISOString(),
    },
  });
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) };
  if (next) headers.link = `<http://localhost${url.pathname}?cursor=${next}>; rel="next"`;
  res.writeHead(200, headers).end(body);
}).listen(Number(portText), '127.0.0.1', () => process.send?.('ready'));
