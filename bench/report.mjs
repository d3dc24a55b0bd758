// `node bench/report.mjs`: bench/RESULTS.md and bench/history.svg, regenerated from bench/history.jsonl.
//
// bench/history.jsonl holds one JSON object per recorded run (`pnpm bench -- --record`), oldest first. RESULTS.md
// shows the latest run of each backend, catalogue size and workload; history.svg plots every run's median
// ours / same-SQL and its worst search p99. Both are written whole each time: edit the history, not them.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const historyFile = path.join(here, 'history.jsonl');
const resultsFile = path.join(here, 'RESULTS.md');
const svgFile = path.join(here, 'history.svg');

/** Every recorded run, oldest first. */
export function readHistory(file = historyFile) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      if (line.trim() === '') return [];
      try {
        return [JSON.parse(line)];
      } catch (error) {
        throw new Error(`${path.relative(process.cwd(), file)}:${i + 1}: ${error.message}`);
      }
    });
}

// --- the series: backend × catalogue size × workload ----------------------------------------------------------
const backends = ['sqlite', 'postgres'];
const modes = ['repeated', 'distinct'];
const backendName = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const modeName = { repeated: 'repeated URLs (answered from memory)', distinct: 'distinct URLs (first requests)' };
const shortSize = (rows) => (rows >= 1_000_000 ? `${rows / 1_000_000}M` : `${rows / 1000}k`);
const seriesKey = (e) => `${e.db} ${e.rows} ${e.mode}`;
/** The history's series, SQLite first, then by catalogue size, repeated before distinct. */
function seriesOf(history) {
  const rank = (list, value) => (list.includes(value) ? list.indexOf(value) : list.length);
  const first = new Map();
  for (const e of history) if (!first.has(seriesKey(e))) first.set(seriesKey(e), e);
  return [...first.entries()]
    .sort(
      ([, a], [, b]) =>
        rank(backends, a.db) - rank(backends, b.db) || a.rows - b.rows || rank(modes, a.mode) - rank(modes, b.mode),
    )
    .map(([key]) => key);
}
/** The command line that measures a series. */
function command({ db, rows, mode }) {
  const flags = [
    ...(db === 'postgres' ? ['--db postgres'] : []),
    ...(rows !== 100_000 ? [`--rows ${rows}`] : []),
    ...(mode === 'distinct' ? ['--distinct'] : []),
  ];
  return flags.length ? `pnpm bench -- ${flags.join(' ')}` : 'pnpm bench';
}

function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
/** The run's median over request kinds of ours / same-SQL. */
const medianVsSameSql = (e) => median(e.kinds.map((k) => k.vsSameSql));
/** The run's highest p99 of ours over the kinds with a search (none before search was measured). */
function worstSearchP99(e) {
  const p99s = e.kinds.filter((k) => /search/.test(k.kind) && Number.isFinite(k.ours.p99)).map((k) => k.ours.p99);
  return p99s.length ? Math.max(...p99s) : null;
}

// --- RESULTS.md -----------------------------------------------------------------------------------------------
const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const mbList = (sizes) =>
  Object.entries(sizes ?? {})
    .map(([table, mb]) => `${table} ${mb} MB`)
    .join(', ');

function describeRun(e) {
  const commit = e.commit
    ? `commit \`${e.commit}\`${e.dirty ? ' with uncommitted changes' : ''}`
    : 'commit not recorded';
  const memory = [
    e.peakMemoryMB?.anonymous != null ? `${e.peakMemoryMB.anonymous} MB anonymous` : undefined,
    e.peakMemoryMB?.resident != null ? `${e.peakMemoryMB.resident} MB resident` : undefined,
  ].filter(Boolean);
  const size =
    e.sizeOnDiskMB != null
      ? `${e.sizeOnDiskMB} MB (${e.db === 'sqlite' ? 'the SQLite file' : 'the PostgreSQL schema'}${e.tableSizesMB ? `; with their indexes: ${mbList(e.tableSizesMB)}` : ''})`
      : 'not measured';
  return [
    `${e.date}, ${commit}${e.variant ? `, ${e.variant}` : ''}; ${e.rounds === 1 ? 'one round' : `${e.rounds} alternating rounds`}${e.instances === 2 ? ', with one and two instances' : ''}; \`${command(e)}\`.`,
    `Machine: ${e.machine ?? 'not recorded'}. Steal: ${e.steal ? `median ${e.steal.median} %, highest ${e.steal.highest} % of one measurement` : 'not measured'}.`,
    `Server memory at peak: ${memory.length ? memory.join(', ') : 'not measured'}. Size on disk: ${size}.${e.seedSeconds != null ? ` Seeded in ${e.seedSeconds} s.` : ''}`,
  ];
}

function kindsTable(e) {
  return [
    '| request kind | URLs | ours req/s | ours p50 ms | ours p99 ms | ours CPU µs/req | same-SQL req/s | same-SQL p99 ms | ours / same-SQL | ours / straightforward |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...e.kinds.map(
      (k) =>
        `| ${k.kind} | ${k.urls ?? 'n/a'} | ${fmt(k.ours.rps, 0)} | ${fmt(k.ours.p50)} | ${fmt(k.ours.p99)} | ${fmt(k.ours.cpuUs, 0)} | ${fmt(k.sameSql?.rps, 0)} | ${fmt(k.sameSql?.p99)} | **${fmt(k.vsSameSql)}** | **${fmt(k.vsStraightforward)}** |`,
    ),
  ];
}

function resultsMarkdown(history) {
  const latest = new Map();
  for (const e of history) latest.set(seriesKey(e), e);
  const shown = seriesOf(history).map((key) => latest.get(key));
  const lastScaling = history.findLast((e) => e.extra?.instances);
  const first = history[0];
  const last = history.at(-1);
  const out = [
    '# Benchmark results',
    '',
    '<!-- This file and bench/history.svg are written by `node bench/report.mjs` from bench/history.jsonl (`pnpm bench -- --record` appends a run, then runs it): do not edit them by hand. -->',
    '',
    '`pnpm bench` seeds a deterministic synthetic catalogue (100,000 releases, seed 42) into a SQLite file or a',
    'PostgreSQL schema, starts the built server and two bare `node:http` reference servers on the same database, and',
    'drives each from another process over loopback (8 keep-alive connections, 5 s per measurement after 1 s',
    "warm-up), request kind by request kind. **same-SQL** runs exactly our storage's SQL through the same driver with",
    'no framework, so **ours / same-SQL** is what the framework costs net of what our caches win back;',
    '**straightforward** runs the SQL one writes first (`EXISTS` per filter, `LIKE` for search, `GROUP BY` for',
    'facets), so **ours / straightforward** is what query planning is worth. Ratios are taken within one run; the',
    'absolute figures of this shared 2-core virtual machine move between runs.',
    '',
    '| to measure | run |',
    '|---|---|',
    '| repeated URLs on SQLite, 100,000 releases | `pnpm bench` |',
    '| distinct URLs (first requests, more than any cache holds) | `pnpm bench -- --distinct` |',
    '| on PostgreSQL (`BENCH_DATABASE_URL`) | `pnpm bench -- --db postgres` |',
    '| a million releases | `pnpm bench -- --rows 1000000` |',
    '| one and two instances behind nginx | `pnpm bench -- --db postgres --instances 2` |',
    '| and keep the run: append it to bench/history.jsonl, regenerate this file | `pnpm bench -- --record` |',
    '',
    `The latest run of each (${history.length} runs recorded, ${first?.date ?? 'none'} to ${last?.date ?? 'none'}), each measured with the code of its day:`,
    '',
    '| backend | releases | URLs | latest | median ours / same-SQL | lowest | targets met |',
    '|---|---:|---|---|---:|---:|---:|',
    ...shown.map((e) => {
      const lowest = Math.min(...e.kinds.map((k) => k.vsSameSql).filter((v) => Number.isFinite(v)));
      const met = e.checks.filter((c) => c.met).length;
      return `| ${backendName[e.db]} | ${e.rows.toLocaleString('en-US')} | ${e.mode} | [${e.date}](#${anchor(e)}) | ${fmt(medianVsSameSql(e))} | ${fmt(lowest)} | ${met} of ${e.checks.length} |`;
    }),
  ];
  for (const e of shown) {
    out.push(
      '',
      `## ${heading(e)}`,
      '',
      ...describeRun(e),
      '',
      ...kindsTable(e),
      '',
      ...e.checks.map((c) => `- ${c.met ? 'met' : 'MISSED'}: ${c.text}`),
      ...(e.errors ?? []).map((text) => `- ERROR: ${text}`),
      ...(e.notes ?? []).map((text) => `- note: ${text}`),
    );
  }
  if (lastScaling) {
    out.push(
      '',
      '## One and two instances behind nginx',
      '',
      `${lastScaling.date}, ${backendName[lastScaling.db]}, ${lastScaling.rows.toLocaleString('en-US')} releases (\`${command(lastScaling)} --instances 2\`).`,
      '',
      ...lastScaling.extra.instances.split('\n'),
    );
  }
  out.push(
    '',
    '## History',
    '',
    'Every recorded run, with every column, the compression table, the after-idle line and the rest: bench/history.jsonl',
    '(one JSON object per run, oldest first), plotted in bench/history.svg:',
    '',
    '![Median ours / same-SQL per run, and the worst search p99](history.svg)',
    '',
  );
  return out.join('\n');
}
const heading = (e) => `${backendName[e.db]}, ${e.rows.toLocaleString('en-US')} releases, ${modeName[e.mode]}`;
/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (e) =>
  heading(e)
    .toLowerCase()
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replaceAll(' ', '-');

// --- history.svg ------------------------------------------------------------------------------------------------
/** A colour per backend and catalogue size (the usual four first, then others in turn). */
const usualColours = {
  'sqlite 100000': '#1f77b4',
  'sqlite 1000000': '#2ca02c',
  'postgres 100000': '#ff7f0e',
  'postgres 1000000': '#9467bd',
};
const otherColours = ['#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#d62728'];
function colourOf(keys) {
  const colours = new Map(Object.entries(usualColours));
  for (const key of keys) {
    const size = key.split(' ').slice(0, 2).join(' ');
    if (!colours.has(size)) colours.set(size, otherColours[(colours.size - 4) % otherColours.length]);
  }
  return (key) => colours.get(key.split(' ').slice(0, 2).join(' '));
}
const escapeXml = (s) =>
  String(s).replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]);
const px = (n) => Number(n.toFixed(1));

/** A log-scale axis over [min, max], widened to whole steps of 1, 2, 5 × 10^n. */
function logAxis(values, floor) {
  const finite = values.filter((v) => Number.isFinite(v) && v > 0);
  const steps = [];
  for (let exp = -3; exp <= 7; exp++) for (const m of [1, 2, 5]) steps.push(m * 10 ** exp);
  const lowest = Math.min(floor, ...finite);
  const highest = Math.max(floor, ...finite);
  const min = steps.findLast((s) => s <= lowest) ?? steps[0];
  const max = steps.find((s) => s >= highest) ?? steps.at(-1);
  const ticks = steps.filter((s) => s >= min && s <= max);
  // Fewer labels when the axis spans many decades.
  const labelled = Math.log10(max / min) > 3 ? ticks.filter((t) => Number.isInteger(Math.log10(t))) : ticks;
  return { min, max, ticks, labelled };
}
const tickLabel = (t) => (t >= 1000 ? `${t / 1000}k` : String(Number(t.toPrecision(3))));

function historySvg(history) {
  const width = 800;
  const height = 520;
  const plot = { left: 56, right: 560 };
  const panels = [
    {
      title: 'Median over request kinds of ours / same-SQL per run (log scale; above 1.0, ours serves more req/s)',
      top: 40,
      bottom: 300,
      value: medianVsSameSql,
      reference: { at: 1, label: '1.0' },
      unit: '',
    },
    {
      title: 'Worst p99 of ours over the search kinds per run, ms (log scale; target 20 ms)',
      top: 355,
      bottom: 470,
      value: worstSearchP99,
      reference: { at: 20, label: '20 ms' },
      unit: ' ms',
    },
  ];
  const n = history.length;
  const x = (i) => plot.left + (n === 1 ? (plot.right - plot.left) / 2 : ((plot.right - plot.left) * i) / (n - 1));
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<title>pnpm bench history: ${n} recorded runs${n ? `, ${escapeXml(history[0].date)} to ${escapeXml(history.at(-1).date)}` : ''}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  const keys = seriesOf(history);
  const colourFor = colourOf(keys);
  for (const panel of panels) {
    const values = history.map(panel.value);
    const axis = logAxis(values, panel.reference.at);
    const y = (v) =>
      panel.bottom - ((panel.bottom - panel.top) * Math.log(v / axis.min)) / Math.log(axis.max / axis.min);
    out.push(
      `<text x="${plot.left}" y="${panel.top - 12}" font-size="12" font-weight="bold">${escapeXml(panel.title)}</text>`,
    );
    out.push(
      `<rect x="${plot.left}" y="${panel.top}" width="${plot.right - plot.left}" height="${panel.bottom - panel.top}" fill="none" stroke="#999999"/>`,
    );
    for (const t of axis.ticks) {
      const labelled = axis.labelled.includes(t);
      out.push(
        `<line x1="${plot.left}" x2="${plot.right}" y1="${px(y(t))}" y2="${px(y(t))}" stroke="${labelled ? '#dddddd' : '#f0f0f0'}"/>`,
      );
      if (labelled)
        out.push(
          `<text x="${plot.left - 6}" y="${px(y(t) + 4)}" text-anchor="end" fill="#444444">${tickLabel(t)}</text>`,
        );
    }
    const ry = px(y(panel.reference.at));
    out.push(
      `<line x1="${plot.left}" x2="${plot.right}" y1="${ry}" y2="${ry}" stroke="#d62728" stroke-width="1.5" stroke-dasharray="6 3"/>`,
      `<text x="${plot.right - 4}" y="${ry - 4}" text-anchor="end" fill="#d62728">${escapeXml(panel.reference.label)}</text>`,
    );
    // The x axis: runs in recorded order, a tick where a new date begins (labels that would overlap left out).
    let lastLabel = -Infinity;
    for (const [i, e] of history.entries()) {
      if (i > 0 && history[i - 1].date === e.date) continue;
      const at = px(x(i));
      out.push(`<line x1="${at}" x2="${at}" y1="${panel.top}" y2="${panel.bottom + 4}" stroke="#e4e4e4"/>`);
      if (at - lastLabel >= 34) {
        out.push(
          `<text x="${at}" y="${panel.bottom + 16}" text-anchor="middle" fill="#444444">${escapeXml(e.date.slice(5))}</text>`,
        );
        lastLabel = at;
      }
    }
    for (const key of keys) {
      const colour = colourFor(key);
      const distinct = key.endsWith('distinct');
      const points = history
        .map((e, i) => ({ e, i, v: panel.value(e) }))
        .filter(({ e, v }) => seriesKey(e) === key && Number.isFinite(v) && v > 0);
      if (points.length > 1)
        out.push(
          `<polyline fill="none" stroke="${colour}" stroke-width="1.6"${distinct ? ' stroke-dasharray="5 3"' : ''} points="${points.map(({ i, v }) => `${px(x(i))},${px(y(v))}`).join(' ')}"/>`,
        );
      for (const { e, i, v } of points) {
        const tip = `<title>${escapeXml(`${e.date} ${backendName[e.db]} ${shortSize(e.rows)} ${e.mode}: ${fmt(v)}${panel.unit}${e.commit ? ` (${e.commit})` : ''}`)}</title>`;
        out.push(
          distinct
            ? `<rect x="${px(x(i) - 3)}" y="${px(y(v) - 3)}" width="6" height="6" fill="#ffffff" stroke="${colour}" stroke-width="1.5">${tip}</rect>`
            : `<circle cx="${px(x(i))}" cy="${px(y(v))}" r="3" fill="${colour}">${tip}</circle>`,
        );
      }
    }
  }
  out.push(
    `<text x="${(plot.left + plot.right) / 2}" y="${height - 14}" text-anchor="middle" fill="#444444">runs in recorded order; ticks where a date begins (${escapeXml(history[0]?.date.slice(0, 4) ?? '')}-MM-DD)</text>`,
  );
  // The legend.
  out.push(`<text x="586" y="${panels[0].top + 4}" font-weight="bold">series (runs)</text>`);
  for (const [j, key] of keys.entries()) {
    const [db, rows, mode] = key.split(' ');
    const colour = colourFor(key);
    const distinct = mode === 'distinct';
    const ly = panels[0].top + 24 + j * 20;
    const count = history.filter((e) => seriesKey(e) === key).length;
    out.push(
      `<line x1="586" x2="612" y1="${ly}" y2="${ly}" stroke="${colour}" stroke-width="1.6"${distinct ? ' stroke-dasharray="5 3"' : ''}/>`,
      distinct
        ? `<rect x="596" y="${ly - 3}" width="6" height="6" fill="#ffffff" stroke="${colour}" stroke-width="1.5"/>`
        : `<circle cx="599" cy="${ly}" r="3" fill="${colour}"/>`,
      `<text x="618" y="${ly + 4}">${escapeXml(`${backendName[db]} ${shortSize(Number(rows))} ${mode} (${count})`)}</text>`,
    );
  }
  const notesTop = panels[0].top + 24 + keys.length * 20 + 10;
  [
    'solid, filled: repeated URLs',
    'dashed, hollow: distinct URLs',
    '(first requests, --distinct)',
    'hover a point for its value',
  ].forEach((line, j) => out.push(`<text x="586" y="${notesTop + j * 15}" fill="#666666">${line}</text>`));
  out.push('</svg>', '');
  return out.join('\n');
}

/** Writes bench/RESULTS.md and bench/history.svg from the history (read from bench/history.jsonl by default). */
export function writeReport(history = readHistory()) {
  writeFileSync(resultsFile, resultsMarkdown(history));
  writeFileSync(svgFile, historySvg(history));
  return { results: resultsFile, svg: svgFile };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const history = readHistory();
  const written = writeReport(history);
  console.error(
    `${history.length} runs from ${path.relative(process.cwd(), historyFile)}: wrote ${path.relative(process.cwd(), written.results)} and ${path.relative(process.cwd(), written.svg)}`,
  );
}
