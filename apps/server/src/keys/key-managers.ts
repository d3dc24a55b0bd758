import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.js';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ApiKeyStore } from '../db/interface.js';
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
  metrics: Metrics;
  /** How often last-use times are written (tests shorten it). */
  usageFlushIntervalMs?: number;
}

export function createKeyManager(deps: KeyManagerDeps): KeyManager {
  const usage = new KeyUsageRecorder(
    deps.keys,
    (error) => deps.logger.warn({ err: error }, 'could not record API key use (will record the next one)'),
    deps.usageFlushIntervalMs,
  );
  return countingVerifications(managerOf(deps, usage), deps.metrics);
}

function managerOf(deps: KeyManagerDeps, usage: KeyUsageRecorder): KeyManager {
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
        metrics: deps.metrics,
        cacheTtlMs: deps.config.keyCacheTtlMs,
      });
    }
  }
}

/** Counts every verification by its result, whichever manager verifies (SPEC §10). */
function countingVerifications(manager: KeyManager, metrics: Metrics): KeyManager {
  // Metrics off: the manager itself, without a step more on the API-key path.
  if (metrics.registry === undefined) return manager;
  return {
    kind: manager.kind,
    verify: (key) =>
      manager.verify(key).then(
        (result) => {
          metrics.keyVerification(result.valid ? 'valid' : result.failure);
          return result;
        },
        (error: unknown) => {
          metrics.keyVerification('unavailable');
          throw error;
        },
      ),
    create: (input) => manager.create(input),
    revoke: (id) => manager.revoke(id),
    close: () => manager.close?.() ?? Promise.resolve(),
  };
}
