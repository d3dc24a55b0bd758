import { apiPaths, headerNames } from '@releases/contract';
import type { Logger } from 'pino';
import { randomBase62 } from './kernel/crypto.js';
import type { Services } from './services.js';
import { readSampleCatalogue } from './catalogue/sample.js';

/** The account the first start makes, so the web app's settings screen can be tried at once. */
export const demoEmail = 'demo@example.com';

/**
 * First start on an empty database outside production: load the sample catalogue, create a demo account and
 * a demo key owned by it, and show the password and key this once (only their hashes are kept). Production
 * never seeds and never prints a secret.
 *
 * Several instances may start at once on one empty database: the catalogue is loaded only into an empty one,
 * atomically, and only the instance that loaded it goes on to make the demo account and key and print them.
 * The others start as on any later day.
 */
export async function seedOnFirstRun(services: Services, logger: Logger): Promise<void> {
  if (services.config.env === 'production') return;
  if ((await services.storage.catalogue.countReleases()) > 0) return;
  const releases = await readSampleCatalogue();
  const seeded = await services.storage.catalogueWrites.seedIfEmpty(releases, new Date(services.clock.now()));
  if (!seeded) return;
  logger.info({ releases: releases.length }, 'empty database: loaded the sample catalogue');

  const password = randomBase62(16);
  const user = await services.accounts.createUser(demoEmail, password);
  const ownerId = user === 'email-taken' ? null : user.id;
  const created = await services.keys.create({ name: 'demo', ownerId, lifetimeMs: null });
  const key = created.created ? created.key : undefined;

  const base = services.config.publicUrl;
  // Straight to the terminal, not the log stream: this is the one place these secrets are meant to be seen.
  process.stderr.write(
    [
      '',
      `  Sample catalogue loaded (${releases.length} releases). Shown only this once:`,
      '',
      ...(user === 'email-taken' ? [] : [`    Demo login:   ${demoEmail} / ${password}`]),
      ...(key ? [`    Demo API key: ${key}`] : []),
      '',
      `  curl '${base}${apiPaths.releaseList}?vocaloid_banks=Hatsune%20Miku&limit=5'`,
      ...(key ? [`  curl -H '${headerNames.apiKey}: ${key}' ${base}${apiPaths.health}`] : []),
      '',
      '',
    ].join('\n'),
  );
}
