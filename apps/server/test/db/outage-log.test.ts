import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectProblem,
  logCapture,
  startTestServer,
  testPassword,
  uniqueEmail,
  type TestServer,
} from '../support/harness.js';

/**
 * A database outage is logged once when it starts and once when it ends (with how many calls failed), however
 * many requests it fails: every 503 wrote a stack before (1,916 lines in 20 s, issue 30). The lines in between
 * (one a minute) are the outage log's own test (`src/kernel/outage-log.test.ts`).
 */
describe('a database that stops answering, then answers again (SQLite: its write lock held elsewhere)', () => {
  const log = logCapture();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      releases: 'none',
      logDestination: log.stream,
      config: { databaseStatementTimeoutMs: 150 },
    });
  });
  afterAll(() => server.close());

  it('logs one line when it starts and one when it ends, none per failed request', async () => {
    // Another process holds the write lock (a long import, a stuck transaction): every write times out.
    const holder = new BetterSqlite3(server.databaseFile);
    holder.exec('begin immediate');
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          server.send('POST', '/api/v1/auth/signup', { email: uniqueEmail(), password: testPassword }),
        ),
      );
      for (const answer of answers) await expectProblem(answer, 'service-unavailable', 503);
    } finally {
      holder.exec('rollback');
      holder.close();
    }
    expect(
      (await server.send('POST', '/api/v1/auth/signup', { email: uniqueEmail(), password: testPassword })).status,
    ).toBe(201);
    const lines = log
      .text()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { msg: string; failed?: number; level: number });
    const about = lines.filter((line) => line.msg.startsWith('the database'));
    expect(about.map((line) => line.msg)).toEqual(['the database is not answering', 'the database answers again']);
    expect(about[1]!.failed).toBe(20);
    // No line of its own for a failed request but its request line.
    expect(lines.filter((line) => line.msg === 'request failed')).toEqual([]);
  });
});
