import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { readSampleCatalogue } from '../catalogue/sample.js';
import { parseReleaseFile } from '../catalogue/import.js';
import { syntheticCatalogue } from '../catalogue/synthetic.js';
import { ConfigError, loadConfig, parseDuration } from '../config.js';
import { createLogger } from '../logger.js';
import { openServices, type Services } from '../services.js';
import { progressBar } from './progress.js';

const usage = `Usage: pnpm cli <command>

  migrate                                   apply database migrations
  seed --sample                             load the sample catalogue
  seed --synthetic N [--seed S]             load N deterministic synthetic releases (up to 1,000,000)
  import FILE                               upsert releases from a JSON array or JSON Lines file (all or nothing)
  keys create --name N [--user EMAIL] [--expires-in 90d] [--json]
  keys list [--json]
  keys revoke ID

Environment: DATABASE_URL (default file:apps/server/data/releases.db), see .env.example.`;

class UsageError extends Error {}

type Output = { json: boolean };

function print(output: Output, value: Record<string, unknown>, text: string): void {
  process.stdout.write(output.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      sample: { type: 'boolean' },
      synthetic: { type: 'string' },
      seed: { type: 'string' },
      name: { type: 'string' },
      user: { type: 'string' },
      'expires-in': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${usage}\n`);
    return command || values.help ? 0 : 2;
  }
  const output: Output = { json: values.json === true };

  const config = loadConfig();
  // Logs go to stderr so that `--json` output on stdout stays one clean object.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const services = await openServices(config, logger);
  try {
    return await dispatch(services, output, command, sub, rest, values);
  } finally {
    await services.storage.close();
  }
}

async function dispatch(
  services: Services,
  output: Output,
  command: string,
  sub: string | undefined,
  rest: string[],
  values: Record<string, string | boolean | undefined>,
): Promise<number> {
  const now = () => new Date(services.clock.now());
  switch (command) {
    case 'migrate':
      print(output, { migrated: true }, 'Database is up to date.');
      return 0;

    case 'seed': {
      if (values.sample) {
        const releases = await readSampleCatalogue();
        const result = await services.storage.upsertReleases(releases, now());
        print(output, { ...result }, `Sample catalogue: ${result.inserted} inserted, ${result.updated} updated.`);
        return 0;
      }
      if (typeof values.synthetic === 'string') {
        const count = Number(values.synthetic.replace(/_/g, ''));
        const seed = values.seed === undefined ? 1 : Number(values.seed);
        if (!Number.isInteger(count) || count < 1 || count > 5_000_000)
          throw new UsageError('--synthetic takes a count from 1 to 5000000');
        if (!Number.isInteger(seed) || seed < 0) throw new UsageError('--seed takes a non-negative integer');
        const bar = progressBar(count, 'seeding');
        const loaded = await services.storage.loadReleases(syntheticCatalogue(count, seed), now(), (done) =>
          bar.update(done),
        );
        bar.finish();
        print(output, { loaded, seed }, `Loaded ${loaded} synthetic releases (seed ${seed}).`);
        return 0;
      }
      throw new UsageError('seed needs --sample or --synthetic N');
    }

    case 'import': {
      if (!sub) throw new UsageError('import needs a FILE');
      const parsed = parseReleaseFile(await readFile(sub, 'utf8'));
      if (!parsed.ok) {
        for (const error of parsed.errors) process.stderr.write(`row ${error.row}: ${error.message}\n`);
        process.stderr.write(`Nothing was imported: ${parsed.errors.length} row(s) failed validation.\n`);
        if (output.json) process.stdout.write(`${JSON.stringify({ imported: 0, errors: parsed.errors })}\n`);
        return 1;
      }
      const result = await services.storage.upsertReleases(parsed.releases, now());
      print(
        output,
        { ...result },
        `Imported ${parsed.releases.length} rows: ${result.inserted} inserted, ${result.updated} updated.`,
      );
      return 0;
    }

    case 'keys':
      return keysCommand(services, output, sub, rest, values);

    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function keysCommand(
  services: Services,
  output: Output,
  sub: string | undefined,
  rest: string[],
  values: Record<string, string | boolean | undefined>,
): Promise<number> {
  switch (sub) {
    case 'create': {
      const name = typeof values.name === 'string' ? values.name.trim() : '';
      if (!name || name.length > 100) throw new UsageError('keys create needs --name (1 to 100 characters)');
      let ownerId: string | null = null;
      if (typeof values.user === 'string') {
        const user = await services.storage.findUserByEmail(values.user);
        if (!user) throw new UsageError(`no user with the email ${values.user}`);
        ownerId = user.id;
      }
      let expiresAt: Date | null = null;
      if (typeof values['expires-in'] === 'string') {
        let ms: number;
        try {
          ms = parseDuration(values['expires-in']);
        } catch {
          throw new UsageError('--expires-in takes a duration such as 30d, 12h or 90m');
        }
        if (ms <= 0) throw new UsageError('--expires-in must be positive');
        expiresAt = new Date(services.clock.now() + ms);
      }
      const { key, summary } = await services.keys.create({ name, ownerId, expiresAt });
      print(
        output,
        { ...summary, key },
        `Created ${summary.id} (${summary.name}). The key is shown only now; store it safely:\n\n  ${key}\n`,
      );
      return 0;
    }
    case 'list': {
      const keys = await services.keys.list();
      if (output.json) process.stdout.write(`${JSON.stringify({ keys })}\n`);
      else if (keys.length === 0) process.stdout.write('No API keys.\n');
      else {
        for (const key of keys) {
          const state = key.revokedAt
            ? 'revoked'
            : key.expiresAt && Date.parse(key.expiresAt) <= services.clock.now()
              ? 'expired'
              : 'active';
          process.stdout.write(
            `${key.id}  ${key.displayStart}…  ${state.padEnd(7)}  ${key.name}  created ${key.createdAt}` +
              `${key.expiresAt ? `  expires ${key.expiresAt}` : ''}${key.lastUsedAt ? `  last used ${key.lastUsedAt}` : ''}\n`,
          );
        }
      }
      return 0;
    }
    case 'revoke': {
      const id = rest[0];
      if (!id) throw new UsageError('keys revoke needs an ID (see keys list)');
      const revoked = await services.keys.revoke(id);
      if (!revoked) {
        process.stderr.write(`No active key has the id ${id}.\n`);
        return 1;
      }
      print(output, { id, revoked: true }, `Revoked ${id}. It stops working everywhere within a few seconds.`);
      return 0;
    }
    default:
      throw new UsageError('keys takes create, list or revoke');
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${usage}\n`);
      process.exitCode = 2;
    } else if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
    } else if (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${error.message}\n\n${usage}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
