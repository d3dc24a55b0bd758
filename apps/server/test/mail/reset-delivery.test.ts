import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../src/db/errors.js';
import { expectProblem, startTestServer, uniqueEmail, type TestServer } from '../support/harness.js';
import { resetLinkOf, startInbox, type Inbox } from '../support/smtp-inbox.js';
import { closedPort } from '../support/unkey-standin.js';

/** A password reset is never lost quietly (issue 30 #4). */
describe('a reset mail while the mail server is down', () => {
  let port: number;
  let server: TestServer;
  let inbox: Inbox | undefined;
  beforeAll(async () => {
    port = await closedPort();
    server = await startTestServer({
      releases: 'none',
      config: { smtp: { url: `smtp://127.0.0.1:${port}`, from: 'no-reply@releases.test' } },
    });
  });
  afterAll(async () => {
    await server.close();
    await inbox?.close();
  });

  it('is kept and tried again, and delivered once the mail server answers; the link works', async () => {
    const account = await server.signup();
    const asked = await server.send('POST', '/api/v1/auth/password-reset', { email: account.email });
    expect(asked.status).toBe(202);
    await server.services.resets.settled();
    // The first attempt failed (nothing listens there); the mail server comes up a moment later.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    inbox = await startInbox({ port });
    const mail = await inbox.next(account.email, 15_000);
    const { token } = resetLinkOf(mail);
    const confirmed = await server.send('POST', '/api/v1/auth/password-reset/confirm', {
      token,
      new_password: 'a pass phrase found again',
    });
    expect(confirmed.status).toBe(204);
  });

  it('a newer request replaces a mail still waiting: only its link is sent, and it works', async () => {
    await inbox?.close();
    inbox = undefined;
    const account = await server.signup();
    for (let i = 0; i < 2; i++) {
      expect((await server.send('POST', '/api/v1/auth/password-reset', { email: account.email })).status).toBe(202);
      await server.services.resets.settled();
    }
    inbox = await startInbox({ port });
    const mail = await inbox.next(account.email, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(inbox.messages.filter((message) => message.to.includes(account.email))).toHaveLength(1);
    const confirmed = await server.send('POST', '/api/v1/auth/password-reset/confirm', {
      token: resetLinkOf(mail).token,
      new_password: 'another pass phrase found',
    });
    expect(confirmed.status).toBe(204);
  });
});

describe('a password reset while the database does not answer', () => {
  let down = false;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      releases: 'none',
      wrapStorage: (storage) =>
        Object.assign(Object.create(storage) as typeof storage, {
          ping: () => (down ? Promise.reject(new StorageUnavailableError('down')) : storage.ping()),
        }),
    });
  });
  afterAll(() => server.close());

  it('is a 503 for every email alike, known or not, instead of a 202 that loses it', async () => {
    const account = await server.signup();
    down = true;
    try {
      for (const email of [account.email, uniqueEmail()]) {
        const answer = await server.send('POST', '/api/v1/auth/password-reset', { email });
        const problem = await expectProblem(answer, 'service-unavailable', 503);
        expect(answer.headers.get('retry-after')).not.toBeNull();
        expect(problem.detail).not.toContain(email);
      }
    } finally {
      down = false;
    }
    expect((await server.send('POST', '/api/v1/auth/password-reset', { email: account.email })).status).toBe(202);
  });
});
