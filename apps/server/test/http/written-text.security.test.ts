import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/db/interface.js';
import {
  expectProblem,
  startTestServer,
  testDatabases,
  testPassword,
  uniqueEmail,
  type SignedUp,
  type TestServer,
} from '../support/harness.js';

/**
 * SPEC §3.7: text a person writes (emails, key names, filter values) holding NUL, another C0 or a C1 control,
 * a lone surrogate or a bidirectional override is a 400 naming the field, on both backends, through real
 * HTTP; never a 500 with an error logged (PostgreSQL refuses NUL in text with 22021).
 */

interface Case {
  name: string;
  /** How the character travels in a URL. */
  query: string;
  /** The character itself, for JSON bodies (`JSON.stringify` writes a lone surrogate as its `\ud800` escape). */
  char: string;
  why: RegExp;
}

const cases: Case[] = [
  { name: 'NUL', query: '%00', char: '\u0000', why: /must not contain NUL characters: U\+0000/ },
  { name: 'ESC, a C0 control', query: '%1B%5B2K', char: '\u001b[2K', why: /control characters: U\+001B/ },
  { name: 'DEL', query: '%7F', char: '\u007f', why: /control characters: U\+007F/ },
  { name: 'NEL, a C1 control', query: '%C2%85', char: '\u0085', why: /control characters: U\+0085/ },
  { name: 'CSI, a C1 control', query: '%C2%9B', char: '\u009b', why: /control characters: U\+009B/ },
  // In a URL a lone surrogate can only be sent as the bytes UTF-8 forbids for it.
  { name: 'a lone surrogate', query: '%ED%A0%80', char: '\ud800', why: /Unicode text \(it holds a lone surrogate\)/ },
  { name: 'RLO, a bidi override', query: '%E2%80%AE', char: '\u202e', why: /bidirectional override/ },
  { name: 'LRI, a bidi isolate', query: '%E2%81%A6', char: '\u2066', why: /bidirectional override/ },
  { name: 'PDI, a bidi isolate', query: '%E2%81%A9', char: '\u2069', why: /bidirectional override/ },
];

/** Log lines at `error` (50) or above, as a pino destination sees them. */
function errorLog(): { destination: Writable; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line && (JSON.parse(line) as { level: number }).level >= 50) lines.push(line);
      }
      done();
    },
  });
  return { destination, lines };
}

describe.each(testDatabases())('text a person writes ($database)', ({ database, run }) => {
  let server: TestServer;
  let account: SignedUp;
  const log = errorLog();

  beforeAll(async () => {
    if (!run) return;
    server = await startTestServer({ database, logDestination: log.destination });
    account = await server.signup();
  });
  afterAll(() => server?.close());

  describe.each(cases)('holding $name', ({ query, char, why }) => {
    it.runIf(run)('in a filter value is a 400 naming the parameter', async () => {
      for (const parameter of ['genres', 'vocaloid_banks', 'languages']) {
        const response = await server.get(`/api/v1/release?${parameter}=rock,a${query}b`);
        const problem = await expectProblem(response, 'invalid-request', 400);
        expect(problem.errors).toEqual([{ parameter, detail: expect.stringMatching(/^value 2 /) as unknown }]);
        expect(problem.errors?.[0]?.detail).toMatch(why);
        expect(problem.detail).toContain(parameter);
      }
    });

    it.runIf(run)('in a key name is a 400 pointing at /name, and no key is made', async () => {
      const before = (await server.rows('api_keys')).length;
      const response = await server.send('POST', '/api/v1/keys', { name: `ci${char}key` }, { session: account.token });
      const problem = await expectProblem(response, 'invalid-request', 400);
      expect(problem.errors).toEqual([{ pointer: '/name', detail: expect.stringMatching(why) as unknown }]);
      expect(await server.rows('api_keys')).toHaveLength(before);
    });

    it.runIf(run)('in an email is a 400 pointing at /email, on signing up and in', async () => {
      const email = `mia${char}@example.com`;
      for (const path of ['/api/v1/auth/signup', '/api/v1/auth/login']) {
        const response = await server.send('POST', path, { email, password: testPassword });
        const problem = await expectProblem(response, 'invalid-request', 400);
        expect(problem.errors).toContainEqual({ pointer: '/email', detail: expect.stringMatching(why) as unknown });
      }
    });
  });

  it.runIf(run)('still takes what people write: any script, spaces and empty items in filters', async () => {
    for (const query of [
      'genres=%20rock%20,',
      'vocaloid_banks=%E5%88%9D%E9%9F%B3%E3%83%9F%E3%82%AF',
      'genres=r%C3%B6ck',
    ]) {
      expect((await server.get(`/api/v1/release?${query}`)).status, query).toBe(200);
    }
    const created = await server.send(
      'POST',
      '/api/v1/keys',
      { name: 'ロック 🎸 עברית\u200f' },
      { session: account.token },
    );
    expect(created.status).toBe(201);
  });

  it.runIf(run)(
    'lets a password hold control characters (it is only ever hashed), but not a lone surrogate',
    async () => {
      const email = uniqueEmail();
      const password = 'tab\there and\u001b escape';
      expect((await server.send('POST', '/api/v1/auth/signup', { email, password })).status).toBe(201);
      expect((await server.send('POST', '/api/v1/auth/login', { email, password })).status).toBe(200);
      const problem = await expectProblem(
        await server.send('POST', '/api/v1/auth/signup', { email: uniqueEmail(), password: 'long enough \ud800' }),
        'invalid-request',
        400,
      );
      expect(problem.errors).toEqual([
        { pointer: '/password', detail: expect.stringMatching(/lone surrogate/) as unknown },
      ]);
    },
  );

  it.runIf(run)('logged no error for any of these requests', () => {
    expect(log.lines).toEqual([]);
  });
});

describe.runIf(testDatabases().find((d) => d.database === 'postgres')?.run)(
  'text PostgreSQL cannot store that reaches it anyway',
  () => {
    let server: TestServer;
    const log = errorLog();

    beforeAll(async () => {
      // Defence in depth: a storage path that carries a NUL past the contract's rule (here, a wrapper adds one).
      server = await startTestServer({
        database: 'postgres',
        releases: 'none',
        logDestination: log.destination,
        wrapStorage: (storage) =>
          Object.assign(Object.create(storage) as Storage, {
            accounts: Object.assign(Object.create(storage.accounts) as Storage['accounts'], {
              findUserByEmail: (email: string) => storage.accounts.findUserByEmail(`${email}\u0000`),
            }),
          }),
      });
    });
    afterAll(() => server?.close());

    it('is a 400 problem (22021), not a 500, and logs no error', async () => {
      const response = await server.send('POST', '/api/v1/auth/login', {
        email: uniqueEmail(),
        password: testPassword,
      });
      const problem = await expectProblem(response, 'invalid-request', 400);
      expect(problem.detail).toMatch(/text that cannot be stored/);
      expect(log.lines).toEqual([]);
    });
  },
);
