import { apiKeyChecksum, headerNames, sessionCookieNames, type RouteAuth } from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouteTable, type RouteEntry } from '../../src/http/route-table.js';
import { expectProblem, startTestServer, type TestServer } from './harness.js';

/**
 * The authentication matrix of one router, generated from the contract (like unkey's `runSharedRoleTests`):
 * for every route whose key starts with `${contractKey}.`, what its `metadata.auth` promises is checked against
 * a real server (`auth/credentials.ts` reads the credential, `auth/admission.ts` applies the rule):
 *
 * - `none`: no credential is read: a malformed API key, bearer token or session cookie changes nothing;
 * - `optional`: anonymous callers are answered (under `RELEASES_AUTH=required`, refused with a 401); a malformed
 *   or unknown API key and a malformed bearer token are a 401, never a downgrade to anonymous; a valid API key
 *   and a valid session are answered;
 * - `api-key`: no credential, a malformed key and a session (bearer or cookie) are a 401; a valid key is answered;
 * - `session`: no credential, a malformed and an unknown bearer token are a 401; a valid API key is a 403
 *   (`forbidden`: API keys never manage accounts or keys); a valid session is answered;
 * - every 401 is an `unauthorized` problem (`application/problem+json`) whose `WWW-Authenticate` challenges
 *   with exactly the schemes the route takes.
 *
 * "Answered" (not refused) means neither 401 nor 403: with a body of `{}` and made-up ids, a route may well
 * answer 400, 404 or 204. Each request that needs a session signs up an account of its own, so routes that end
 * sessions or change the account (sign-out, a new password, deleting the account) spoil no other case.
 */
export function describeAuthMatrix(contractKey: string): void {
  const entries = new RouteTable().entries.filter((entry) => entry.key.startsWith(`${contractKey}.`));
  if (entries.length === 0) throw new Error(`the contract has no routes under ${contractKey}`);

  describe(`who may call the ${contractKey} routes (the contract's auth matrix)`, () => {
    let server: TestServer;
    /** The same server under `RELEASES_AUTH=required`, for the `optional` routes. */
    let strict: TestServer | undefined;
    let apiKey: string;
    beforeAll(async () => {
      server = await startTestServer({ releases: 'none', config: { rateLimits: generousLimits } });
      apiKey = (await server.createKey()).key;
      if (entries.some((entry) => entry.metadata.auth === 'optional')) {
        strict = await startTestServer({
          releases: 'none',
          config: { authMode: 'required', rateLimits: generousLimits },
        });
      }
    });
    afterAll(async () => {
      await server?.close();
      await strict?.close();
    });

    const callOn = (on: TestServer, entry: RouteEntry, headers: Record<string, string> = {}) =>
      on.send(entry.route.method, pathOf(entry), bodyMethods.has(entry.route.method) ? {} : undefined, { headers });
    const call = (entry: RouteEntry, headers?: Record<string, string>) => callOn(server, entry, headers);
    /** A session of a fresh account, as `Authorization: Bearer`. */
    const session = async () => ({ authorization: `Bearer ${(await server.signup()).token}` });

    for (const entry of entries) {
      const { auth } = entry.metadata;
      describe(`${entry.route.method} ${entry.route.path} (${entry.key}, auth: ${auth})`, () => {
        if (auth === 'none') {
          it.each([
            ['a malformed API key', malformedApiKey],
            ['a malformed bearer token', malformedBearer],
            ['a malformed session cookie', malformedCookie],
          ])('reads no credential: %s changes nothing', async (_label, headers) => {
            const anonymous = await call(entry);
            await anonymous.arrayBuffer();
            const presented = await call(entry, headers);
            await presented.arrayBuffer();
            expect(presented.status).not.toBe(401);
            expect(presented.status).toBe(anonymous.status);
          });
        }

        if (auth === 'optional') {
          it('answers an anonymous caller', async () => {
            await expectAnswered(await call(entry));
          });
          it('refuses an anonymous caller with a 401 under RELEASES_AUTH=required', async () => {
            if (!strict) throw new Error('the RELEASES_AUTH=required server did not start');
            await expectUnauthorized(await callOn(strict, entry), auth);
          });
          it.each([
            ['a malformed API key', malformedApiKey],
            ['an unknown API key', unknownApiKey],
            ['a malformed bearer token', malformedBearer],
          ])('refuses %s with a 401, never a downgrade to anonymous', async (_label, headers) => {
            await expectUnauthorized(await call(entry, headers), auth);
          });
          it('answers a valid API key', async () => {
            await expectAnswered(await call(entry, { [headerNames.apiKey]: apiKey }));
          });
          it('answers a valid session (Authorization: Bearer)', async () => {
            await expectAnswered(await call(entry, await session()));
          });
        }

        if (auth === 'api-key') {
          it('refuses a request without a credential with a 401', async () => {
            await expectUnauthorized(await call(entry), auth);
          });
          it('refuses a malformed API key with a 401', async () => {
            await expectUnauthorized(await call(entry, malformedApiKey), auth);
          });
          it('refuses a valid session, by bearer token or by cookie, with a 401: it takes API keys only', async () => {
            const account = await server.signup();
            await expectUnauthorized(await call(entry, { authorization: `Bearer ${account.token}` }), auth);
            await expectUnauthorized(await call(entry, { cookie: account.cookie }), auth);
          });
          it('answers a valid API key', async () => {
            await expectAnswered(await call(entry, { [headerNames.apiKey]: apiKey }));
          });
        }

        if (auth === 'session') {
          it('refuses a request without a credential with a 401', async () => {
            await expectUnauthorized(await call(entry), auth);
          });
          it('refuses a valid API key with a 403 (forbidden)', async () => {
            await expectProblem(await call(entry, { [headerNames.apiKey]: apiKey }), 'forbidden', 403);
          });
          it.each([
            ['a malformed bearer token', malformedBearer],
            ['a well-formed but unknown session token', unknownBearer],
          ])('refuses %s with a 401', async (_label, headers) => {
            await expectUnauthorized(await call(entry, headers), auth);
          });
          it('answers a valid session (Authorization: Bearer)', async () => {
            await expectAnswered(await call(entry, await session()));
          });
        }
      });
    }
  });
}

/** Quotas nothing here reaches: signing up and in alone allow 10 a minute per address otherwise. */
const generousLimits = { windowMs: 60_000, anonymous: 100_000, apiKey: 100_000, session: 100_000, auth: 100_000 };

/** The methods whose requests carry a body (`http/json-body.ts`); the matrix sends `{}`. */
const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const malformedApiKey = { [headerNames.apiKey]: 'rls_malformed' };
const unknownKeyBody = `rls_${'Z'.repeat(32)}`;
/** Well-formed, with a checksum that matches: only a lookup can tell no such key was issued. */
const unknownApiKey = { [headerNames.apiKey]: `${unknownKeyBody}${apiKeyChecksum(unknownKeyBody)}` };
const malformedBearer = { authorization: 'Bearer not-a-session-token' };
/** The shape of a session token (43 base64url characters), but none this server issued. */
const unknownBearer = { authorization: `Bearer ${'A'.repeat(43)}` };
const malformedCookie = { cookie: `${sessionCookieNames.plain}=%00%ff` };

/** A plausible id for a path parameter, by the segment before it: well-formed, so the route runs (404). */
const plausibleIds: Record<string, string> = {
  release: 'rel_doesnotexist',
  sessions: 'ses_doesnotexist',
  keys: 'key_doesnotexist',
  problems: 'not-found',
};

function pathOf(entry: RouteEntry): string {
  const segments = entry.route.path.split('/');
  return segments
    .map((segment, i) => {
      if (!segment.startsWith(':')) return segment;
      const id = plausibleIds[segments[i - 1] ?? ''];
      if (id === undefined) throw new Error(`auth-matrix.ts has no plausible id for ${segment} in ${entry.route.path}`);
      return id;
    })
    .join('/');
}

/** The schemes a route's 401 challenges with, by its rule (one challenge per scheme it takes). */
const challengedSchemes: Record<Exclude<RouteAuth, 'none'>, string[]> = {
  optional: ['ApiKey', 'Bearer'],
  'api-key': ['ApiKey'],
  session: ['Bearer'],
};

async function expectUnauthorized(response: Response, auth: Exclude<RouteAuth, 'none'>): Promise<void> {
  const challenge = response.headers.get('www-authenticate');
  await expectProblem(response, 'unauthorized', 401);
  expect(challenge).toBeTruthy();
  const schemes = [...(challenge ?? '').matchAll(/(?:^|,\s*)([A-Za-z]+) realm=/g)].map((match) => match[1]);
  expect(schemes).toEqual(challengedSchemes[auth]);
}

/** Neither 401 nor 403: whatever the route makes of the request, the caller was let in. */
async function expectAnswered(response: Response): Promise<void> {
  const body = await response.text();
  expect([401, 403], `${response.status} ${body}`).not.toContain(response.status);
}
