import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { logCapture, startTestServer, type SignedUp } from '../support/harness.js';
import { closedPort } from '../support/unkey-standin.js';

/** Mail settings (`SMTP_URL`, `MAIL_FROM`), and what happens when the mail server cannot be reached. */
describe('SMTP_URL and MAIL_FROM', () => {
  const configError = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('the configuration was accepted');
  };

  it('are read together: SMTP_URL needs MAIL_FROM, and a bad value names its variable (never the password)', () => {
    expect(configError({ SMTP_URL: 'smtp://user:s3cret-pass@mail.example.com:587' })).toMatch(
      /MAIL_FROM: is required when SMTP_URL is set/,
    );
    const scheme = configError({ SMTP_URL: 'https://user:s3cret-pass@mail.example.com', MAIL_FROM: 'a@example.com' });
    expect(scheme).toMatch(/SMTP_URL: must start with smtp:\/\/ or smtps:\/\//);
    expect(scheme).not.toContain('s3cret-pass');
    expect(configError({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'Releases\r\nBcc: x@evil.example' })).toMatch(
      /MAIL_FROM: must be an address/,
    );
    expect(configError({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'not an address' })).toMatch(/MAIL_FROM/);
  });

  it('give the mail settings when both are right, and none without SMTP_URL', () => {
    expect(loadConfig({}).smtp).toBeUndefined();
    for (const [url, from] of [
      ['smtp://mail.example.com:587', 'no-reply@example.com'],
      ['smtps://user:pass@mail.example.com:465', 'Releases <no-reply@example.com>'],
    ] as const) {
      expect(loadConfig({ SMTP_URL: url, MAIL_FROM: from }).smtp).toEqual({ url, from });
    }
  });
});

describe('a mail server that cannot be reached', () => {
  it('does not change the answer; the failure is logged, without the link or the token', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const server = await startTestServer({
      releases: 'none',
      logDestination: destination,
      config: { smtp: { url: `smtp://127.0.0.1:${await closedPort()}`, from: 'no-reply@releases.test' } },
    });
    try {
      const account = await server.signup();
      const response = await server.send('POST', '/api/v1/auth/password-reset', { email: account.email });
      expect(response.status).toBe(202);
      await server.services.resets.settled();
      const logged = lines.join('');
      expect(logged).toMatch(/the mail server \(SMTP\) is not answering/);
      expect(logged).toMatch(/ECONNREFUSED/);
      expect(logged).not.toContain('reset-password');
      const [pending] = await server.rows('password_resets');
      expect(logged).not.toContain(String(pending!.token_hash));
    } finally {
      await server.close();
    }
  });
});

describe('a password reset without SMTP_URL', () => {
  async function resetWithoutMail(env: 'production'): Promise<{ logged: string; account: SignedUp }> {
    const logs = logCapture();
    const server = await startTestServer({ releases: 'none', logDestination: logs.stream, config: { env } });
    try {
      const account = await server.signup();
      expect((await server.send('POST', '/api/v1/auth/password-reset', { email: account.email })).status).toBe(202);
      await server.services.resets.settled();
      return { logged: logs.text(), account };
    } finally {
      await server.close();
    }
  }

  it('logs the link once in development, and the link works', async () => {
    const logs = logCapture();
    const server = await startTestServer({
      releases: 'none',
      logDestination: logs.stream,
      config: { env: 'development' },
    });
    try {
      const account = await server.signup();
      expect((await server.send('POST', '/api/v1/auth/password-reset', { email: account.email })).status).toBe(202);
      await server.services.resets.settled();
      const links = logs.text().match(/https?:\/\/[^"\s]+\/reset-password#token=[A-Za-z0-9_-]{43}/g) ?? [];
      expect(links).toHaveLength(1);
      const token = new URL(links[0]!).hash.slice('#token='.length);
      const confirmed = await server.send('POST', '/api/v1/auth/password-reset/confirm', {
        token,
        new_password: 'a password found again',
      });
      expect(confirmed.status).toBe(204);
    } finally {
      await server.close();
    }
  });

  it('logs a warning without the link in production, and sends nothing', async () => {
    const { logged, account } = await resetWithoutMail('production');
    expect(logged).toMatch(/SMTP_URL is not set: no mail was sent/);
    expect(logged).not.toContain('/reset-password');
    expect(logged).not.toContain('token=');
    expect(logged).not.toContain(account.email);
  });
});
