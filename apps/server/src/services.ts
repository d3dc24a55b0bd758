import type { Logger } from 'pino';
import type { KeyManager } from './auth/key-manager.js';
import { LocalKeyManager } from './auth/local-key-manager.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { openStorage } from './storage/index.js';
import type { Storage } from './storage/interface.js';

export interface Services {
  config: Config;
  storage: Storage;
  keys: KeyManager;
  clock: Clock;
  cursorSecret: string;
}

/** Opens and migrates the database and builds what both the server and the CLI need. */
export async function openServices(config: Config, logger: Logger, clock: Clock = systemClock): Promise<Services> {
  const storage = await openStorage(config.databaseUrl);
  try {
    await storage.migrate();
    const keys = new LocalKeyManager({
      storage,
      clock,
      cacheTtlMs: config.keyCacheTtlMs,
      onBackgroundError: (error) => logger.warn({ err: error }, 'could not record API key use'),
    });
    const cursorSecret = config.cursorSecret ?? (await storage.serverSecret('cursor'));
    return { config, storage, keys, clock, cursorSecret };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
