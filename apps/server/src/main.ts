import type { Server } from 'node:http';
import v8 from 'node:v8';
import { createApp } from './app.js';
import { seedOnFirstRun } from './first-run.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger, flushLogs } from './kernel/logger.js';
import { listenForMetrics } from './metrics/metrics-listener.js';
import { createNodeServer, serve } from './http/node-server.js';
import { composeServer, openServices, warmUp } from './services.js';

/** How often ended sessions are deleted from the database (each instance sweeps; a delete of none is cheap). */
const sessionSweepIntervalMs = 60 * 60_000;

/** After SHUTDOWN_TIMEOUT has closed the connections, how long closing the database and Redis may take. */
const shutdownGraceMs = 1_000;

/**
 * V8 lets the old generation grow by up to 4x between full collections when the process spends little time
 * collecting, which under steady load is garbage held for nothing: a server on a 1M catalogue peaked at
 * 410 MB RSS. Growing it by at most 25% per collection kept it under 200 MB at the same throughput (pnpm
 * bench). The flag is read at every collection, so setting it here, before the load, takes effect.
 */
const heapGrowingPercent = 25;
/**
 * V8 pretenures an allocation site (allocates its objects straight in the old generation) when most of what it
 * made survived a young-generation collection. Under reads from PostgreSQL some sites on that path tip over, and
 * their old-generation objects then hold every young string they point to (the rows' documents, garbage a millisecond
 * later) through the next collections: ours promoted 1.6-2 MB per young-generation collection, and ran a full
 * collection every half second, where the same reads without the framework promoted nothing. Without
 * pretenuring the rows die young: 0.11 MB (bench/RESULTS.md, "fifth pass"). Like the flag above, it is read when
 * V8 decides, so setting it here, before the load, takes effect.
 */
const pretenuring = '--no-allocation-site-pretenuring';
// Not settable here: `--min-semi-space-size=16` must be on the command line (`pnpm start`, docs/deploy.md).
// V8 shrinks an idle process's young generation to 1 MB, and under the next load it collects every few
// milliseconds for seconds until it has grown back; the size it may shrink to is fixed when the heap is made.

async function main(): Promise<void> {
  v8.setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
  v8.setFlagsFromString(pretenuring);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const services = await openServices(config, logger, { sessionSweepIntervalMs });
  await seedOnFirstRun(services, logger);
  void services.storage.catalogue.warmUp();
  warmUp(services, logger);

  let shuttingDown = false;
  const parts = await composeServer(services, logger, { isShuttingDown: () => shuttingDown });
  const { listener } = createApp({ ...services, ...parts, logger });
  const server: Server = createNodeServer({ requestTimeoutMs: config.requestTimeoutMs });
  serve(server, { listener, routes: parts.routes, publicUrl: config.publicUrl, logger, metrics: services.metrics });
  // Longer than the usual load balancer idle timeout (60 s), so the balancer, not us, closes idle connections.
  server.keepAliveTimeout = 65_000;
  // Never on the public server: a socket of its own, on METRICS_HOST (loopback unless told otherwise), bound
  // first, so a server that cannot serve its metrics never takes traffic.
  const registry = services.metrics.registry;
  const metricsServer = config.metrics && registry ? await listenForMetrics(registry, config.metrics) : undefined;
  if (config.metrics) logger.info(config.metrics, 'metrics listening at /metrics');
  server.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  logger.info({ url: config.publicUrl, port: config.port, database: config.databaseUrl.split(':')[0] }, 'listening');
  // The last thing `pnpm start` prints, for a person at a terminal; production logs only.
  if (config.env !== 'production') {
    flushLogs(logger);
    process.stderr.write(
      `\n  Open ${config.publicUrl} (the API is under /api/v1, its reference at /docs). Ctrl-C stops.\n\n`,
    );
  }

  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // Stop accepting, let in-flight requests finish, drop idle keep-alive sockets; force after the timeout.
    const force = setTimeout(() => {
      logger.warn('shutdown timeout: closing remaining connections');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    // Closing the pools waits for their connections, and a hung database never gives one back: whatever is
    // still open a moment after the timeout is left behind, so that shutdown always ends.
    const abandon = setTimeout(() => {
      logger.error(
        { timeoutMs: config.shutdownTimeoutMs },
        'shutdown timed out: exiting with work unfinished (the database or Redis did not let go)',
      );
      flushLogs(logger);
      process.exit(1);
    }, config.shutdownTimeoutMs + shutdownGraceMs);
    abandon.unref();
    server.close(() => {
      // Scrapes went on while requests drained; nothing is left to count.
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      void (async () => {
        await services.close().catch((error: unknown) => logger.error({ err: error }, 'closing the database failed'));
        await parts.close().catch((error: unknown) => logger.error({ err: error }, 'closing redis failed'));
        logger.info('stopped');
        flushLogs(logger);
        process.exit(0);
      })();
    });
    // Idle keep-alive connections close now, and each one still answering closes as soon as its answer is
    // written (a keep-alive timeout of 1 ms from here on), so the process exits once the last request is
    // answered instead of waiting SHUTDOWN_TIMEOUT for connections that went idle meanwhile.
    server.keepAliveTimeout = 1;
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  if (error instanceof Error && error.cause)
    process.stderr.write(
      `  cause: ${error.cause instanceof Error ? error.cause.message : JSON.stringify(error.cause)}\n`,
    );
  process.exit(1);
});
