import { APIError, ReleasesClient, ReleasesError, VERSION, type Logger } from '@releases/client';

/**
 * The journey a stranger makes with the SDK, as one module every runtime of the matrix runs (Node 18 to 24,
 * Deno, Bun, workerd and Chromium; test/runtime-matrix.test.ts): it imports the packed package by its name
 * and uses only what every one of them has (fetch, URL, timers). It records what it saw, as plain data; the
 * test compares that with what every runtime must see, so a difference shows as a diff.
 */

export interface JourneyConfig {
  /** The runtime's name in the matrix; the fault server counts requests under it. */
  runtime: string;
  /** The real server. */
  baseUrl: string;
  /** A key of the real server. */
  apiKey: string;
  /** The fault server, with this runtime's path prefix (`.../<runtime>`). */
  faultBaseUrl: string;
  /** A loopback port that nothing listens on. */
  refusedBaseUrl: string;
  /** An account to sign up, of this runtime's own. */
  email: string;
  password: string;
  /** Whether the runtime lets the SDK read RELEASES_* (set, with spaces around them, by the test). */
  environment: 'readable' | 'unreadable';
}

/** What an error was: its class and the fields a caller branches on. */
interface SeenError {
  name: string;
  releasesError: boolean;
  kind?: string;
  status?: number;
}

function seen(error: unknown): SeenError {
  if (!(error instanceof ReleasesError)) {
    return {
      name: `not a ReleasesError: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      releasesError: false,
    };
  }
  const result: SeenError = { name: error.name, releasesError: true };
  if (error instanceof APIError) {
    result.status = error.status;
    if (error.kind !== undefined) result.kind = error.kind;
  }
  return result;
}

/** The error a call rejects with; a call that succeeds is a finding too. */
async function failure(call: () => Promise<unknown>): Promise<SeenError> {
  try {
    await call();
    return { name: 'no error', releasesError: false };
  } catch (error) {
    return seen(error);
  }
}

/** A logger that keeps every line, to count retries and responses. */
function recorder(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string): void => {
    lines.push(message);
  };
  return { logger: { error: keep, warn: keep, info: keep, debug: keep }, lines };
}

export async function journey(config: JourneyConfig) {
  const log = recorder();
  const client = new ReleasesClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    logger: log.logger,
    logLevel: 'debug',
  });

  // The catalogue: a page, the next one, every page of a filter, one release, the facets.
  const first = await client.releases.list({ vocaloid_banks: ['Hatsune Miku'], limit: 5 });
  const second = await first.getNextPage();
  const facets = await client.facets.list();
  const mikuIds: string[] = [];
  for await (const release of client.releases.list({ vocaloid_banks: ['Hatsune Miku'], limit: 50 })) {
    mikuIds.push(release.id);
  }
  const listed = first.releases[0]!;
  const one = await client.releases.get(listed.id);

  // The raw response, both ways.
  const raw = await client.releases.list({ limit: 2 }).withResponse();
  const response = await client.facets.list().asResponse();
  const responseBody = (await response.json()) as { success?: unknown };

  // Another client from this one.
  const failFast = client.withOptions({ maxRetries: 0, timeoutMs: 10_000 });

  // An account: sign up, a key, the key at work, revoked; signed out.
  const { session } = await client.auth.signup({ email: config.email, password: config.password });
  const me = client.withSession(session.token);
  const created = await me.keys.create({ name: `matrix ${config.runtime}`, expires_in_days: 1 });
  const { keys } = await me.keys.list();
  const keyHealth = await client.withOptions({ apiKey: created.key }).health.check();
  const revoked = await me.keys.revoke(created.id);
  await me.auth.logout();

  // What the environment gives: RELEASES_* (trimmed), or nothing and no crash where it cannot be read.
  const fromEnvironment = recorder();
  const environmentClient = new ReleasesClient({ logger: fromEnvironment.logger });
  const environment: Record<string, unknown> = { baseUrl: environmentClient.baseUrl };
  if (config.environment === 'readable') {
    environment.health = await environmentClient.health.check();
    environment.debugFromRELEASES_LOG = fromEnvironment.lines.some((line) => line.includes('→ 200'));
  }

  // Failures: no server, a reset, a body cut short, an empty body, a 500; and what the server saw of us.
  const faults = recorder();
  const faulty = (baseUrl: string) =>
    new ReleasesClient({
      baseUrl,
      maxRetries: 2,
      retryBackoff: { baseDelayMs: 1, maxDelayMs: 5 },
      logger: faults.logger,
      logLevel: 'info',
    });
  const refused = await failure(() => faulty(config.refusedBaseUrl).facets.list());
  const refusedRetries = faults.lines.filter((line) => line.startsWith('releases: retrying')).length;

  return {
    version: VERSION,
    health: await client.health.check(),
    firstPage: {
      size: first.releases.length,
      hasNextPage: first.hasNextPage(),
      secondPageDiffers: second.releases[0]?.id !== listed.id,
    },
    everyMikuRelease: {
      matchesFacets: mikuIds.length === facets.vocaloid_banks.find((bank) => bank.value === 'Hatsune Miku')?.count,
      unique: new Set(mikuIds).size === mikuIds.length,
      moreThanOnePage: mikuIds.length > 5,
    },
    oneRelease: one.id === listed.id && one.title === listed.title,
    notFound: await failure(() => client.releases.get('rel_nothing_here')),
    badRequest: await failure(() => client.releases.list({ limit: 0 })),
    withResponse: {
      requestIdMatches: raw.requestId !== undefined && raw.requestId === raw.response.headers.get('x-request-id'),
      nextLink: raw.response.headers.get('link')?.includes('rel="next"') ?? false,
    },
    asResponse: { status: response.status, success: responseBody.success },
    withOptions: { derived: failFast.maxRetries, original: client.maxRetries, health: await failFast.health.check() },
    debugLinePerResponse: log.lines.some((line) => /facets → 200 in \d+ ms \(request id [\w-]+\)$/.test(line)),
    account: {
      keyListed: keys.some((key) => key.id === created.id),
      keyWorks: keyHealth,
      revoked: revoked.revoked_at !== null,
      afterLogout: await failure(() => me.auth.session()),
    },
    environment,
    faults: {
      refused: { ...refused, retries: refusedRetries },
      reset: await failure(() => faulty(`${config.faultBaseUrl}/reset`).facets.list()),
      cut: await failure(() => faulty(`${config.faultBaseUrl}/cut`).facets.list()),
      // A POST may have taken effect: it fails, and is not sent again.
      resetPost: await failure(() =>
        faulty(`${config.faultBaseUrl}/reset-post`).auth.login({ email: config.email, password: config.password }),
      ),
      empty: await failure(() => faulty(`${config.faultBaseUrl}/empty`).facets.list()),
      noContent: await failure(() => faulty(`${config.faultBaseUrl}/no-content`).releases.get('rel_1')),
      serverError: await failure(() => faulty(`${config.faultBaseUrl}/error-500`).facets.list()),
      identified: (await faulty(`${config.faultBaseUrl}/echo`).facets.list()).genres.length === 0,
    },
  };
}

/** What the journey reports, as the test reads it. */
export type JourneyReport = Awaited<ReturnType<typeof journey>>;
