import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverRoot } from '../../src/config.js';
import { freePort } from './process-harness.js';

/**
 * A real Prometheus (Debian's package, `apt-get install -y prometheus`) run by a test with docs/prometheus.yml,
 * its storage in a temporary folder and its API on a free loopback port: what an operator runs in front of the
 * instances' metrics ports (docs/deploy.md).
 */

const template = path.join(serverRoot, '..', '..', 'docs', 'prometheus.yml');
const candidates = [process.env.PROMETHEUS_BINARY, '/usr/bin/prometheus', '/usr/local/bin/prometheus'];

/** The prometheus binary, or undefined when none is installed. */
export function prometheusBinary(): string | undefined {
  return candidates.find((candidate): candidate is string => candidate !== undefined && existsSync(candidate));
}

/** `prometheus --version`'s first line, to say which one ran. */
export function prometheusVersion(binary: string): string {
  return spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? binary;
}

/** One sample of an instant vector, as the query API answers it. */
export interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface Prometheus {
  url: string;
  /** An instant query (`/api/v1/query`); throws unless Prometheus answers with a vector. */
  query(promql: string): Promise<VectorSample[]>;
  /** Ends Prometheus (SIGTERM, then SIGKILL after 5 s) and removes its folder. */
  stop(): Promise<void>;
}

/** Starts Prometheus scraping `targets` (host:port) every `scrapeInterval`; resolves once it is ready. */
export async function startPrometheus({
  targets,
  scrapeInterval = '1s',
}: {
  targets: string[];
  scrapeInterval?: string;
}): Promise<Prometheus> {
  const binary = prometheusBinary();
  if (!binary) throw new Error('prometheus is not installed (RUNLEVEL=1 apt-get install -y prometheus)');
  const folder = mkdtempSync(path.join(tmpdir(), 'releases-prometheus-'));
  const values: Record<string, string> = {
    SCRAPE_INTERVAL: scrapeInterval,
    TARGETS: `[${targets.map((target) => `'${target}'`).join(', ')}]`,
  };
  const config = path.join(folder, 'prometheus.yml');
  writeFileSync(
    config,
    readFileSync(template, 'utf8').replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => values[name] ?? whole),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    binary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(folder, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(folder, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited (${child.exitCode}): ${stderr}`);
    }
    try {
      if ((await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1_000) })).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within 20 s: ${stderr}`);
    }
    await sleep(100);
  }

  return {
    url,
    async query(promql) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`, {
        signal: AbortSignal.timeout(5_000),
      });
      const body = (await response.json()) as {
        status: string;
        error?: string;
        data?: { resultType: string; result: VectorSample[] };
      };
      if (body.status !== 'success' || body.data?.resultType !== 'vector') {
        throw new Error(`prometheus refused ${promql}: ${body.error ?? JSON.stringify(body)}`);
      }
      return body.data.result;
    },
    stop,
  };
}
