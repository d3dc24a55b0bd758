import { readSampleCatalogue } from '../../catalogue/sample.js';
import { syntheticCatalogue } from '../../catalogue/synthetic.js';
import type { Services } from '../../services.js';
import { stringOption, UsageError, type CommandArgs, type Output } from '../output.js';
import { text } from '../printable.js';
import { progressBar } from '../progress.js';

export async function seed(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const now = new Date(services.clock.now());
  if (args.values.sample) {
    const releases = await readSampleCatalogue();
    const result = await services.storage.catalogueWrites.upsertReleases(releases, now);
    output.result({ ...result }, text`Sample catalogue: ${result.inserted} inserted, ${result.updated} updated.`);
    return 0;
  }
  const synthetic = stringOption(args, 'synthetic');
  if (synthetic === undefined) throw new UsageError(text`seed needs --sample or --synthetic N`);
  const count = Number(synthetic.replace(/_/g, ''));
  const seedOption = stringOption(args, 'seed');
  const seedValue = seedOption === undefined ? 1 : Number(seedOption);
  if (!Number.isInteger(count) || count < 1 || count > 5_000_000) {
    throw new UsageError(text`--synthetic takes a count from 1 to 5000000`);
  }
  if (!Number.isInteger(seedValue) || seedValue < 0) throw new UsageError(text`--seed takes a non-negative integer`);
  const bar = progressBar(count, 'seeding');
  const loaded = await services.storage.catalogueWrites.loadReleases(
    syntheticCatalogue(count, seedValue),
    now,
    (done) => {
      bar.update(done);
      if (done < count) return;
      bar.finish();
      // Into an empty catalogue the indexes are built now, from sorted rows: a while at a million releases.
      output.note(text`Every release written; building indexes and counting facets...`);
    },
  );
  output.result({ loaded, seed: seedValue }, text`Loaded ${loaded} synthetic releases (seed ${seedValue}).`);
  return 0;
}
