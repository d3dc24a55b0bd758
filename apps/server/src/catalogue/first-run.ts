import { apiPaths, headerNames } from '@releases/contract';
import type { Logger } from 'pino';
import type { Services } from '../services.js';
import { readSampleCatalogue } from './sample.js';

/**
 * First start on an empty database outside production: load the sample catalogue and issue a demo key,
 * shown this once (only its hash is kept). Production never seeds and never prints a secret.
 */
export async function seedOnFirstRun(services: Services, logger: Logger): Promise<void> {
  if (services.config.env === 'production') return;
  if ((await services.storage.countReleases()) > 0) return;
  const releases = await readSampleCatalogue();
  await services.storage.upsertReleases(releases, new Date(services.clock.now()));
  const { key } = await services.keys.create({ name: 'demo', ownerId: null, expiresAt: null });
  logger.info({ releases: releases.length }, 'empty database: loaded the sample catalogue');
  const base = services.config.publicUrl;
  // Straight to the terminal, not the log stream: this is the one place a key is meant to be seen.
  process.stderr.write(
    [
      '',
      `  Sample catalogue loaded (${releases.length} releases). Demo API key, shown only this once:`,
      '',
      `    ${key}`,
      '',
      `  curl '${base}${apiPaths.releaseList}?vocaloid_banks=Hatsune%20Miku&limit=5'`,
      `  curl -H '${headerNames.apiKey}: ${key}' ${base}${apiPaths.health}`,
      '',
      '',
    ].join('\n'),
  );
}
