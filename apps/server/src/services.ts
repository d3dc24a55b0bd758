import type { Logger } from 'pino';
import { AccountService } from './auth/accounts.js';
import type { KeyManager } from './auth/key-manager.js';
import { createKeyManager } from './auth/key-managers.js';
import { prepareDecoyPassword } from './auth/passwords.js';
import { SessionService } from './auth/sessions.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { openStorage } from './storage/index.js';
import type { Storage } from './storage/interface.js';

export interface Services {
  config: Config;
  storage: Storage;
  keys: KeyManager;
  sessions: SessionService;
  accounts: AccountService;
  clock: Clock;
  cursorSecret: string;
  /** Closes what these services hold: the key manager's pending writes, then the database. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  /** Overrides `DATABASE_STATEMENT_TIMEOUT` (the CLI's long imports use 0: no bound). */
  statementTimeoutMs?: number;
  /** Wraps the storage before anything is built on it (tests count or fail lookups). */
  wrapStorage?: (storage: Storage) => Storage;
  /** How often API key last-use times are written (tests shorten it). */
  usageFlushIntervalMs?: number;
  /**
   * How often everyone's ended sessions are deleted; none when unset (the CLI). A session's own sign-in sweeps
   * that user's, but a user who never signs in again would otherwise leave theirs behind for good.
   */
  sessionSweepIntervalMs?: number;
}

/** Opens and migrates the database and builds what both the server and the CLI need. */
export async function openServices(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const opened = await openStorage(config.databaseUrl, {
    statementTimeoutMs: options.statementTimeoutMs ?? config.databaseStatementTimeoutMs,
    poolSize: config.databasePoolSize,
  });
  const storage = options.wrapStorage ? options.wrapStorage(opened) : opened;
  try {
    await storage.migrate();
    const keys = createKeyManager({
      config,
      keys: storage.keys,
      clock,
      logger,
      ...(options.usageFlushIntervalMs === undefined ? {} : { usageFlushIntervalMs: options.usageFlushIntervalMs }),
    });
    const sessions = new SessionService(storage.sessions, clock, config.sessions);
    const accounts = new AccountService(storage.accounts, sessions, clock);
    const cursorSecret = config.cursorSecret ?? (await storage.secrets.serverSecret('cursor'));
    const sweeps =
      options.sessionSweepIntervalMs === undefined
        ? undefined
        : sweepSessionsEvery(options.sessionSweepIntervalMs, sessions, logger);
    return {
      config,
      storage,
      keys,
      sessions,
      accounts,
      clock,
      cursorSecret,
      async close() {
        clearInterval(sweeps);
        await keys.close?.().catch((error: unknown) => logger.warn({ err: error }, 'closing the key manager failed'));
        await opened.close();
      },
    };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/**
 * Deletes ended sessions on a timer that does not keep the process alive; a failed sweep waits for the next
 * (each is bounded by the statement timeout, far shorter than the interval).
 */
function sweepSessionsEvery(intervalMs: number, sessions: SessionService, logger: Logger): NodeJS.Timeout {
  const sweep = () =>
    sessions.sweep().then(
      (deleted) => {
        if (deleted > 0) logger.debug({ deleted }, 'deleted ended sessions');
      },
      (error: unknown) => logger.warn({ err: error }, 'could not delete ended sessions; trying again later'),
    );
  return setInterval(() => void sweep(), intervalMs).unref();
}

/** Warms what the first sign-in would otherwise pay for (the decoy password hash), off the request path. */
export function warmUp(logger: Logger): void {
  prepareDecoyPassword().catch((error: unknown) =>
    logger.warn({ err: error }, 'could not prepare the decoy password hash'),
  );
}
