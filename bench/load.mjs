// Closed-loop HTTP load generator, run as its own process so it never shares a core's event loop with the
// server it measures. Keep-alive connections; each worker sends the next path as soon as the last answer is
// read. Bounded by time and by request count. Prints one JSON object (with the mean bytes of a body as sent: a
// compressed answer is counted compressed).
//
// The configuration arrives as JSON on stdin (thousands of paths do not fit in a command line).
import http from 'node:http';
import { text } from 'node:stream/consumers';

const {
  baseUrl,
  paths,
  connections,
  durationMs,
  warmupMs,
  maxRequests,
  headers = {},
  slowest: keepSlowest = 0,
} = JSON.parse(await text(process.stdin));
const target = new URL(baseUrl);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });

function get(path) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get({ host: target.hostname, port: target.port, path, agent, headers }, (response) => {
      let received = 0;
      response.on('data', (chunk) => (received += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode, ms: performance.now() - started, received }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

let next = 0;
const latencies = [];
let errors = 0;
let non2xx = 0;
let recording = false;
let sent = 0;
let bytes = 0;
/** The `keepSlowest` slowest requests measured, slowest first. */
const slowest = [];

async function worker(until) {
  while (performance.now() < until && sent < maxRequests) {
    const path = paths[next++ % paths.length];
    sent++;
    try {
      const { status, ms, received } = await get(path);
      if (!recording) continue;
      if (status < 200 || status >= 300) non2xx++;
      latencies.push(ms);
      bytes += received;
      if (keepSlowest > 0 && (slowest.length < keepSlowest || ms > slowest[slowest.length - 1].ms)) {
        slowest.push({ path, ms });
        slowest.sort((a, b) => b.ms - a.ms);
        slowest.length = Math.min(slowest.length, keepSlowest);
      }
    } catch {
      if (recording) errors++;
    }
  }
}

const warmupEnd = performance.now() + warmupMs;
await Promise.all(Array.from({ length: connections }, () => worker(warmupEnd)));
recording = true;
sent = 0;
const started = performance.now();
await Promise.all(Array.from({ length: connections }, () => worker(started + durationMs)));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
agent.destroy();
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: pct(50),
    p99: pct(99),
    bytes: bytes / latencies.length,
    slowest,
    errors,
    non2xx,
  }),
);
