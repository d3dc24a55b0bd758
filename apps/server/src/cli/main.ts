import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../kernel/logger.js';
import { openServices, type Services } from '../services.js';
import { importReleases } from './commands/import.js';
import { keys } from './commands/keys.js';
import { migrate } from './commands/migrate.js';
import { seed } from './commands/seed.js';
import { users } from './commands/users.js';
import { createOutput, UsageError, type CommandArgs, type Output } from './output.js';
import { printableLines, text } from './printable.js';

const usage = `Usage: pnpm --silent cli <command>   (--silent keeps pnpm's own banner off stdout)

  migrate                                   apply database migrations
  seed --sample                             load the sample catalogue
  seed --synthetic N [--seed S]             load N deterministic synthetic releases (up to 1,000,000)
  import FILE                               upsert releases from a JSON array or JSON Lines file (all or nothing)
  users create --email E                    create an account; the password is read from stdin
  users set-password --email E              set a new password (read from stdin); the account's sessions end
  users delete --email E                    delete an account with its sessions and keys (revoked at the key manager)
  users sessions --email E [--end-all]      list an account's live sessions; --end-all ends them all
  keys create --name N [--user EMAIL] [--expires-in 90d]
  keys list
  keys revoke ID

Every command takes --json: one JSON object on stdout. Progress and messages go to stderr.
Environment: DATABASE_URL (default file:apps/server/data/releases.db), see .env.example.`;

type Command = (services: Services, output: Output, args: CommandArgs) => number | Promise<number>;

const commands: Record<string, Command> = {
  migrate,
  seed,
  import: importReleases,
  keys,
  users,
};

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
      email: { type: 'string' },
      'expires-in': { type: 'string' },
      'end-all': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [name, ...rest] = positionals;
  if (values.help || !name) {
    process.stdout.write(`${usage}\n`);
    return name || values.help ? 0 : 2;
  }
  const command = commands[name];
  if (!command) throw new UsageError(text`unknown command "${name}"`);

  const config = loadConfig();
  // Logs go to stderr so that `--json` output on stdout stays one clean object.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
  // An import may wait for the server's writes and take longer than a request's statement bound.
  const services = await openServices(config, logger, { statementTimeoutMs: 0 });
  try {
    return await command(services, createOutput(values.json === true), { positionals: rest, values });
  } finally {
    await services.close();
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
      process.stderr.write(`${printableLines(error.message)}\n`);
      process.exitCode = 1;
    } else if (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      // Node's message repeats the unknown option as typed.
      process.stderr.write(`${printableLines(error.message)}\n\n${usage}\n`);
      process.exitCode = 2;
    } else {
      // A driver's or the file system's message may quote data (a row, a path): escaped like any value.
      process.stderr.write(`error: ${printableLines(error instanceof Error ? error.message : String(error))}\n`);
      process.exitCode = 1;
    }
  },
);
