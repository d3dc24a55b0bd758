import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  type ActiveSession,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  ReleasesClient,
} from '../src/index.js';
import { validateResponses } from '../src/validation.js';
import { startLiveServer, type LiveServer } from './server-harness.js';
import { resetTokenIn, startInbox, type Inbox } from './smtp-inbox.js';

/** The account and key journey through the SDK, against the real built server (issue 7 #5). */
let server: LiveServer;
/** The mail server the live server sends password reset mail to (issue 18). */
let inbox: Inbox;
beforeAll(async () => {
  inbox = await startInbox();
  server = await startLiveServer({ SMTP_URL: inbox.url, MAIL_FROM: 'Releases <no-reply@releases.test>' });
});
afterAll(async () => {
  await server.stop();
  await inbox.close();
});

const password = 'correct horse battery staple';
const newEmail = () => `Someone.${randomUUID()}@Example.com`;

describe('accounts and keys through the SDK', () => {
  it('sign up, log in, create a key, use it, list, revoke, log out: the token is then refused', async () => {
    const anonymous = new ReleasesClient({ baseUrl: server.baseUrl, validateResponses });
    const email = newEmail();

    const signedUp = await anonymous.auth.signup({ email, password });
    expect(signedUp.user.email).toBe(email.toLowerCase());
    expect(signedUp.user.id).toMatch(/^usr_/);
    await expect(anonymous.auth.signup({ email, password })).rejects.toBeInstanceOf(ConflictError);

    const { session } = await anonymous.auth.login({ email, password });
    expect(session.token).not.toBe(signedUp.session.token); // a new session on every login
    const me = anonymous.withSession(session.token);
    expect((await me.auth.session()).user.id).toBe(signedUp.user.id);

    const created = await me.keys.create({ name: 'laptop', expires_in_days: 30 });
    expect(created.key).toMatch(/^rls_/);
    expect(created.start).toBe(created.key.slice(0, created.start.length));
    expect(created.expires_at).not.toBeNull();

    const withKey = new ReleasesClient({ baseUrl: server.baseUrl, apiKey: created.key });
    expect(await withKey.health.check()).toBe('OK');
    expect((await withKey.releases.list({ limit: 2 })).releases).toHaveLength(2);

    const { keys } = await me.keys.list();
    expect(keys.map((key) => key.id)).toEqual([created.id]);
    expect(keys[0]).not.toHaveProperty('key');

    const revoked = await me.keys.revoke(created.id);
    expect(revoked.revoked_at).not.toBeNull();
    expect((await me.keys.revoke(created.id)).revoked_at).toBe(revoked.revoked_at);
    // Revocation reaches every instance within 5 s (SPEC §4): a bounded wait, not a timing assertion.
    await expect
      .poll(() => withKey.health.check().catch((e: unknown) => e), { timeout: 7_000, interval: 250 })
      .toBeInstanceOf(AuthenticationError);

    expect(await me.auth.logout()).toBeUndefined();
    await expect(me.auth.session()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(me.keys.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('a wrong password is an AuthenticationError; an invalid body a BadRequestError naming the field', async () => {
    const client = new ReleasesClient({ baseUrl: server.baseUrl });
    const email = newEmail();
    await client.auth.signup({ email, password });
    await expect(client.auth.login({ email, password: `${password}!` })).rejects.toBeInstanceOf(AuthenticationError);
    const invalid = await client.auth.signup({ email: newEmail(), password: 'short' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(BadRequestError);
    expect((invalid as BadRequestError).errors.map((error) => error.pointer)).toEqual(['/password']);
  });

  it('keys are per account, and an API key cannot manage keys', async () => {
    const client = new ReleasesClient({ baseUrl: server.baseUrl });
    const alice = client.withSession((await client.auth.signup({ email: newEmail(), password })).session.token);
    const bob = client.withSession((await client.auth.signup({ email: newEmail(), password })).session.token);
    const key = await alice.keys.create({ name: 'alice' });
    await expect(bob.keys.revoke(key.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await bob.keys.list()).keys).toEqual([]);
    // The SDK sends no API key to a session route; sent by hand, the server refuses it.
    const byKey = new ReleasesClient({ baseUrl: server.baseUrl, apiKey: key.key });
    await expect(byKey.keys.list()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(byKey.keys.list({ headers: { 'x-api-key': key.key } })).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('the account lifecycle through the SDK (issue 18)', () => {
  it('change the password, see and end sessions, reset a forgotten password by mail, delete the account', async () => {
    const anonymous = new ReleasesClient({ baseUrl: server.baseUrl, validateResponses });
    const email = newEmail().toLowerCase();
    const me = anonymous.withSession((await anonymous.auth.signup({ email, password })).session.token);
    const laptop = anonymous.withSession((await anonymous.auth.login({ email, password })).session.token);

    // Where the account is signed in: both sessions, this one marked.
    const { sessions } = await me.auth.sessions.list();
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((session: ActiveSession) => session.current)).toHaveLength(1);
    const other = sessions.find((session) => !session.current)!;

    // A new password: the other session ends, this one stays; a wrong current password is a 401.
    await expect(
      me.auth.changePassword({ current_password: 'not the password', new_password: 'a changed pass phrase' }),
    ).rejects.toBeInstanceOf(AuthenticationError);
    const common = await me.auth
      .changePassword({ current_password: password, new_password: 'password123' })
      .catch((e: unknown) => e);
    expect(common).toBeInstanceOf(BadRequestError);
    expect((common as BadRequestError).errors.map((error) => error.pointer)).toEqual(['/new_password']);
    expect((common as BadRequestError).message).toMatch(/most common passwords/);
    await me.auth.changePassword({ current_password: password, new_password: 'a changed pass phrase' });
    await expect(laptop.auth.session()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(me.auth.sessions.revoke(other.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await me.auth.session()).user.email).toBe(email);

    // Signing out elsewhere, one by id and all the others.
    const phone = anonymous.withSession(
      (await anonymous.auth.login({ email, password: 'a changed pass phrase' })).session.token,
    );
    const tablet = anonymous.withSession(
      (await anonymous.auth.login({ email, password: 'a changed pass phrase' })).session.token,
    );
    const phoneId = (await phone.auth.sessions.list()).sessions.find((session) => session.current)!.id;
    await me.auth.sessions.revoke(phoneId);
    await expect(phone.auth.session()).rejects.toBeInstanceOf(AuthenticationError);
    await me.auth.sessions.revokeOthers();
    await expect(tablet.auth.session()).rejects.toBeInstanceOf(AuthenticationError);
    expect((await me.auth.sessions.list()).sessions.map((session) => session.current)).toEqual([true]);

    // A forgotten password: the mail's link carries the token in its fragment; every session ends.
    expect(await anonymous.auth.requestPasswordReset({ email })).toEqual({ expires_in_minutes: 30 });
    expect(await anonymous.auth.requestPasswordReset({ email: newEmail() })).toEqual({ expires_in_minutes: 30 });
    const token = resetTokenIn(await inbox.next(email));
    const bad = await anonymous.auth
      .confirmPasswordReset({ token: 'A'.repeat(43), new_password: 'a found pass phrase' })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect((bad as BadRequestError).errors.map((error) => error.pointer)).toEqual(['/token']);
    await anonymous.auth.confirmPasswordReset({ token, new_password: 'a found pass phrase' });
    await expect(me.auth.session()).rejects.toBeInstanceOf(AuthenticationError);
    const again = anonymous.withSession(
      (await anonymous.auth.login({ email, password: 'a found pass phrase' })).session.token,
    );

    // Deleting the account: the password is needed; then nothing of it works.
    const key = await again.keys.create({ name: 'doomed' });
    await expect(again.auth.deleteAccount({ password: 'not the password' })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    await again.auth.deleteAccount({ password: 'a found pass phrase' });
    await expect(again.auth.session()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(anonymous.auth.login({ email, password: 'a found pass phrase' })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    await expect(
      new ReleasesClient({ baseUrl: server.baseUrl, apiKey: key.key }).health.check(),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });
});
