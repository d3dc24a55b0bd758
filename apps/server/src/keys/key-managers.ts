import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { ApiKeyStore } from '../storage/interface.js';
import type { KeyManager } from './key-manager.js';
import { KeyUsageRecorder } from './key-usage.js';
import { LocalKeyManager } from './local-key-manager.js';
import { UnkeyKeyManager } from './unkey-key-manager.js';

/** The key manager `KEY_MANAGER` names (SPEC §4). */
export interface KeyManagerDeps {
  config: Config;
  keys: ApiKeyStore;
  clock: Clock;
  logger: Logger;
  /** How often last-use times are written (tests shorten it). */
  usageFlushIntervalMs?: number;
}

export function createKeyManager(deps: KeyManagerDeps): KeyManager {
  const usage = new KeyUsageRecorder(
    deps.keys,
    (error) => deps.logger.warn({ err: error }, 'could not record API key use (will record the next one)'),
    deps.usageFlushIntervalMs,
  );
  switch (deps.config.keyManager) {
    case 'local':
      return new LocalKeyManager({ keys: deps.keys, usage, clock: deps.clock, cacheTtlMs: deps.config.keyCacheTtlMs });
    case 'unkey': {
      // loadConfig guarantees these with KEY_MANAGER=unkey; a config built by hand might not.
      const unkey = deps.config.unkey;
      if (!unkey) throw new Error('KEY_MANAGER=unkey needs UNKEY_ROOT_KEY and UNKEY_API_ID');
      return new UnkeyKeyManager({
        unkey,
        keys: deps.keys,
        usage,
        clock: deps.clock,
        logger: deps.logger,
        cacheTtlMs: deps.config.keyCacheTtlMs,
      });
    }
  }
}
