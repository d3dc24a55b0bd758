import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The server package's own folder, so defaults do not depend on the directory `pnpm` was run from. */
export const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, 'must be a duration such as 500ms, 30s, 15m, 12h or 7d')
  .transform(parseDuration);

const positiveInt = z.coerce.number().int().positive();

const booleanFlag = z
  .enum(['true', 'false', '1', '0'], { errorMap: () => ({ message: 'must be true or false' }) })
  .transform((value) => value === 'true' || value === '1');

const EnvironmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  // Unset: http://localhost:<PORT> (filled in below, once PORT is known).
  PUBLIC_URL: z
    .string()
    .url()
    .refine((value) => /^https?:\/\//.test(value), 'must be an http or https URL')
    .transform((value) => value.replace(/\/+$/, ''))
    .optional(),
  DATABASE_URL: z
    .string()
    .refine((value) => value.startsWith('file:') || /^postgres(ql)?:\/\//.test(value), {
      message: 'must be file:<path>, file::memory: or postgres://...',
    })
    .default(`file:${path.join(serverRoot, 'data', 'releases.db')}`),
  DATABASE_STATEMENT_TIMEOUT: duration.default('5s'),
  // PostgreSQL connections per instance; instances × this must stay under the server's max_connections.
  DATABASE_POOL_SIZE: positiveInt.max(1000, 'must be at most 1000').default(10),
  // The catalogue in memory (about 85 MB at a million releases): off, searches and facets in context are counted
  // in the database, seconds apiece at that size.
  CATALOGUE_IN_MEMORY: booleanFlag.default('true'),
  REDIS_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RELEASES_AUTH: z.enum(['optional', 'required']).default('optional'),
  RATE_LIMIT_WINDOW: duration.default('1m'),
  RATE_LIMIT_ANONYMOUS: positiveInt.default(60),
  RATE_LIMIT_API_KEY: positiveInt.default(600),
  RATE_LIMIT_SESSION: positiveInt.default(600),
  RATE_LIMIT_AUTH: positiveInt.default(10),
  KEY_MANAGER: z.enum(['local', 'unkey']).default('local'),
  // Revocation and expiry must reach every instance within 5 s (SPEC §4): a longer reuse would break that.
  KEY_CACHE_TTL: duration
    .refine((ms) => ms <= 5_000, 'must be at most 5s (revocations reach every instance within it)')
    .default('5s'),
  // Sent as `Authorization: Bearer <root key>`: visible ASCII, no spaces. Zod's messages never echo the value,
  // so a bad one is named without being printed.
  UNKEY_ROOT_KEY: z
    .string()
    .regex(/^[\x21-\x7e]{8,512}$/, 'must be an Unkey root key (8 to 512 visible ASCII characters, no spaces)')
    .optional(),
  UNKEY_API_ID: z
    .string()
    .regex(/^api_[A-Za-z0-9_]{1,250}$/, 'must be an Unkey API id such as api_1234abcd')
    .optional(),
  UNKEY_BASE_URL: z
    .string()
    .url()
    .refine((value) => /^https?:\/\//.test(value), 'must be an http or https URL')
    .transform((value) => value.replace(/\/+$/, ''))
    .default('https://api.unkey.com'),
  UNKEY_TIMEOUT: duration.refine((ms) => ms >= 100 && ms <= 30_000, 'must be between 100ms and 30s').default('2s'),
  SESSION_IDLE_TTL: duration.default('7d'),
  SESSION_ABSOLUTE_TTL: duration.default('30d'),
  // scrypt's work factor as log2(N) (SPEC §4: N = 2^17). Lower is for tests only: production refuses it.
  PASSWORD_HASH_COST: z.coerce
    .number()
    .int()
    .min(10, 'must be from 10 to 20 (log2 of scrypt N)')
    .max(20, 'must be from 10 to 20 (log2 of scrypt N)')
    .default(17),
  // Unset: open in development and test, closed in production (SPEC §3.5).
  ALLOW_SIGNUP: booleanFlag.optional(),
  CORS_ORIGINS: z
    .string()
    .default('*')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    ),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value): boolean | number | string => {
      if (value === 'true') return true;
      if (value === 'false') return false;
      return /^\d+$/.test(value) ? Number(value) : value;
    }),
  CURSOR_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  // nodemailer reads everything from it: host, port, credentials (a secret: never logged), TLS, options.
  SMTP_URL: z
    .string()
    .url('must be a URL such as smtp://user:password@mail.example.com:587')
    .refine((value) => /^smtps?:\/\//i.test(value), 'must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z
    .string()
    .regex(
      // eslint-disable-next-line no-control-regex -- no control characters (a newline would forge mail headers)
      /^(?:[^\u0000-\u001f<>@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/,
      'must be an address such as no-reply@example.com or "Releases <no-reply@example.com>"',
    )
    .optional(),
  SHUTDOWN_TIMEOUT: duration.default('10s'),
  REQUEST_TIMEOUT: duration.default('30s').refine((ms) => ms > 0, 'must be more than 0'),
  // Unset: no metrics. Set: Prometheus' text format at /metrics on this port only (SPEC §10), never the public one.
  METRICS_PORT: z.coerce
    .number({ invalid_type_error: 'must be a port number' })
    .int('must be a port number')
    .min(1, 'must be a port between 1 and 65535')
    .max(65535, 'must be a port between 1 and 65535')
    .optional(),
  // Loopback by default: metrics say a lot about traffic and are for the monitoring network only.
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
});

/** Rules between variables. */
const CheckedEnvironmentSchema = EnvironmentSchema.superRefine((env, context) => {
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT === env.PORT) {
    context.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['METRICS_PORT'],
      message: 'must differ from PORT: metrics are never served on the public port',
    });
  }
  if (env.NODE_ENV === 'production' && env.PASSWORD_HASH_COST < 17) {
    context.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['PASSWORD_HASH_COST'],
      message: 'must be at least 17 in production (SPEC §4: scrypt N = 2^17); lower costs are for tests',
    });
  }
  if (env.SMTP_URL !== undefined && env.MAIL_FROM === undefined) {
    context.addIssue({ code: z.ZodIssueCode.custom, path: ['MAIL_FROM'], message: 'is required when SMTP_URL is set' });
  }
  if (env.KEY_MANAGER !== 'unkey') return;
  for (const name of ['UNKEY_ROOT_KEY', 'UNKEY_API_ID'] as const) {
    if (env[name] === undefined) {
      context.addIssue({ code: z.ZodIssueCode.custom, path: [name], message: 'is required when KEY_MANAGER=unkey' });
    }
  }
});

/** How to reach Unkey (`KEY_MANAGER=unkey`). `rootKey` is a secret: never log it. */
export interface UnkeyConfig {
  rootKey: string;
  apiId: string;
  /** `UNKEY_BASE_URL`, without a trailing slash. */
  baseUrl: string;
  /** The bound on one whole call to Unkey, retries included (`UNKEY_TIMEOUT`). */
  timeoutMs: number;
}

function unkeyConfig(env: z.output<typeof EnvironmentSchema>): UnkeyConfig | undefined {
  // Present only when used, so a root key left in the environment is not carried around for nothing.
  if (env.KEY_MANAGER !== 'unkey' || env.UNKEY_ROOT_KEY === undefined || env.UNKEY_API_ID === undefined) {
    return undefined;
  }
  return {
    rootKey: env.UNKEY_ROOT_KEY,
    apiId: env.UNKEY_API_ID,
    baseUrl: env.UNKEY_BASE_URL,
    timeoutMs: env.UNKEY_TIMEOUT,
  };
}

export type Config = ReturnType<typeof toConfig>;

function toConfig(env: z.output<typeof EnvironmentSchema>) {
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    publicUrl: env.PUBLIC_URL ?? `http://localhost:${env.PORT}`,
    databaseUrl: env.DATABASE_URL,
    databaseStatementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    catalogueInMemory: env.CATALOGUE_IN_MEMORY,
    redisUrl: env.REDIS_URL,
    logLevel: env.LOG_LEVEL,
    authMode: env.RELEASES_AUTH,
    rateLimits: {
      windowMs: env.RATE_LIMIT_WINDOW,
      anonymous: env.RATE_LIMIT_ANONYMOUS,
      apiKey: env.RATE_LIMIT_API_KEY,
      session: env.RATE_LIMIT_SESSION,
      auth: env.RATE_LIMIT_AUTH,
    },
    keyManager: env.KEY_MANAGER,
    keyCacheTtlMs: env.KEY_CACHE_TTL,
    unkey: unkeyConfig(env),
    sessions: { idleTtlMs: env.SESSION_IDLE_TTL, absoluteTtlMs: env.SESSION_ABSOLUTE_TTL },
    passwordHashCost: env.PASSWORD_HASH_COST,
    allowSignup: env.ALLOW_SIGNUP ?? env.NODE_ENV !== 'production',
    corsOrigins: env.CORS_ORIGINS,
    trustProxy: env.TRUST_PROXY,
    cursorSecret: env.CURSOR_SECRET,
    // Present only when mail can go out; `url` may hold the SMTP password: never log it.
    smtp:
      env.SMTP_URL !== undefined && env.MAIL_FROM !== undefined
        ? { url: env.SMTP_URL, from: env.MAIL_FROM }
        : undefined,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT,
    requestTimeoutMs: env.REQUEST_TIMEOUT,
    /** Where Prometheus scrapes `/metrics`; undefined when metrics are off (`METRICS_PORT` unset). */
    metrics: env.METRICS_PORT === undefined ? undefined : { host: env.METRICS_HOST, port: env.METRICS_PORT },
  };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads the environment once, at boot. A bad value stops the process with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Treat empty variables (`PORT=`) as unset, the way shells and .env files usually mean them.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = CheckedEnvironmentSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return toConfig(parsed.data);
}

/** A config for tests and tools: defaults, with overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // A cheap password hash: tests sign in by the hundred, and must not depend on how fast this machine is.
  return {
    ...loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'file::memory:', LOG_LEVEL: 'silent', PASSWORD_HASH_COST: '10' }),
    ...overrides,
  };
}

export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
