import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The server's own test mail server: a real SMTP server (smtp-server) in this process, on a loopback port.
import { resetLinkOf, startInbox, type Inbox } from '../../server/test/support/smtp-inbox.js';
import {
  auditEverywhere,
  desktopViewport,
  docsScreenshotsDir,
  launchChromium,
  resultsDir,
  screenshot,
  severe,
  type AxeViolation,
} from './browser.js';
import { startServer, type ServerProcess } from './server-process.js';

/**
 * The account's whole life in Chromium against the built server, with a real SMTP server catching the reset
 * mail: sign up (strength shown as one types, its dictionary never on the releases page), the keys screen's
 * behaviours, a session that ends mid-action, a failed sign-out, changing the password, the sessions list,
 * forgetting and resetting the password, and deleting the account.
 */

const email = 'lifecycle@example.com';
let password = 'a long enough password';
const newPassword = 'a brand new passphrase 42';
const resetPassword = 'reset by mail, then chosen 7';

let inbox: Inbox;
let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const axeReport: Record<string, AxeViolation[]> = {};
const scripts: string[] = [];

beforeAll(async () => {
  inbox = await startInbox();
  server = await startServer({
    RATE_LIMIT_ANONYMOUS: '5000',
    RATE_LIMIT_SESSION: '5000',
    RATE_LIMIT_AUTH: '1000',
    SMTP_URL: inbox.url,
    MAIL_FROM: 'Releases <no-reply@releases.test>',
  });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: desktopViewport, locale: 'en-US', timezoneId: 'UTC' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await context.route(
    (url) => url.origin !== server.url,
    (route) => route.abort('blockedbyclient'),
  );
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
});

afterAll(async () => {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, 'axe-account.json'), JSON.stringify(axeReport, null, 2));
  await browser?.close();
  await server?.stop();
  await inbox?.close();
});

const url = (pathAndQuery: string) => `${server.url}${pathAndQuery}`;

async function audit(name: string, prepare?: (page: Page) => Promise<void>): Promise<void> {
  const found = await auditEverywhere(page, name, prepare);
  Object.assign(axeReport, found);
  const bad = Object.entries(found).flatMap(([where, violations]) => severe(violations).map((v) => ({ where, ...v })));
  expect(bad, JSON.stringify(bad, null, 2)).toEqual([]);
}

/** A session of this account outside the browser (as another device), by its token. */
async function signInElsewhere(userAgent: string): Promise<string> {
  const response = await fetch(url('/api/v1/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent, origin: server.url },
    body: JSON.stringify({ email, password }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { session: { token: string } } }).data.session.token;
}

async function sessionWorks(token: string): Promise<boolean> {
  const response = await fetch(url('/api/v1/auth/session'), { headers: { authorization: `Bearer ${token}` } });
  return response.status === 200;
}

const messageOf = (target: Page, label: string) =>
  target.getByLabel(label, { exact: true }).evaluate((input) => {
    const ids = input.getAttribute('aria-describedby')?.split(' ') ?? [];
    return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' | ');
  });

describe('an account in Chromium', () => {
  it('the releases page does not load the strength meter; sign-up shows strength as one types', async () => {
    await page.goto(url('/'));
    await page.getByRole('article').first().waitFor();
    expect(scripts.filter((s) => s.includes('password-strength'))).toEqual([]);

    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL(url('/signup'));
    // Both empty: each field says what to enter, in words.
    await page.getByRole('button', { name: 'Sign up' }).click();
    expect(await messageOf(page, 'Email')).toContain('Enter your email address.');
    expect(await messageOf(page, 'Password')).toContain('Enter a password.');
    expect(await page.locator('main').textContent()).not.toContain('must not be');

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').pressSequentially('password1');
    await expect.poll(() => messageOf(page, 'Password')).toMatch(/Strength: (Very weak|Weak)/);
    expect(scripts.some((s) => s.includes('password-strength'))).toBe(true);
    await page.getByLabel('Password').fill(password);
    await expect.poll(() => messageOf(page, 'Password')).toMatch(/Strength: (Fair|Strong|Very strong)/);
    await audit('sign up, strength shown');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(url('/'));
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  it('keys: presets with the date they give, a warning for never, the count, busy Create', async () => {
    await page.goto(url('/settings/keys'));
    const lifetime = page.getByLabel('Expires in (days)');
    await lifetime.waitFor();
    expect(await lifetime.inputValue()).toBe('90');
    expect(await messageOf(page, 'Expires in (days)')).toMatch(/stops working on \w+ \d+, \d{4}/);
    await lifetime.selectOption('');
    expect(await messageOf(page, 'Expires in (days)')).toContain('never expires');
    await lifetime.selectOption('30');
    await page.getByText('0 of 25 active keys').waitFor();

    // The request waits a moment: the button shows it is busy, and pressing again sends nothing more.
    await page.route('**/api/v1/keys', async (route) => {
      if (route.request().method() === 'POST') await new Promise((resolve) => setTimeout(resolve, 700));
      await route.continue();
    });
    await page.getByLabel('Name').fill('first key');
    const create = page.getByRole('button', { name: 'Create key' });
    await create.click();
    expect(await create.getAttribute('aria-disabled')).toBe('true');
    await create.click({ force: true });
    await page.locator('code.secret').waitFor();
    await page.unroute('**/api/v1/keys');
    await page.getByText('1 of 25 active keys').waitFor();
    expect(await page.getByRole('heading', { name: 'first key', exact: true }).count()).toBe(1);
  });

  it('keys: the copied state belongs to the key it copied, and ends with Done or a new key', async () => {
    const first = (await page.locator('code.secret').textContent()) ?? '';
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);

    await page.getByLabel('Name').fill('second key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Your new key “second key”' }).waitFor();
    expect(await page.getByText('Copied to the clipboard.').count()).toBe(0);
    const second = (await page.locator('code.secret').textContent()) ?? '';
    expect(second).not.toBe(first);
    await audit('keys, new key shown');
    await screenshot(page, 'keys-table-desktop', { fullPage: true });
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('code.secret').count()).toBe(0);
    expect(await page.getByText('Copied to the clipboard.').count()).toBe(0);

    // Used once: "last used" reads as people say it.
    expect((await fetch(url('/api/v1/health'), { headers: { 'x-api-key': second } })).status).toBe(200);
  });

  it('keys: revoked keys fold under their own heading; last used is relative', async () => {
    const row = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'first key', exact: true }) });
    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByText('Revoked').waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Revoked and expired keys' }).waitFor();
    const folded = page.getByRole('heading', { name: 'first key', exact: true });
    expect(await folded.isVisible()).toBe(false);
    await page.getByText(/Show the 1 key that no longer works/).click();
    expect(await folded.isVisible()).toBe(true);
    const used = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'second key', exact: true }) });
    // The server records a use a moment after answering it (at most once a minute): read the list again until it shows.
    await expect
      .poll(
        async () => {
          if (/Last usedNever/.test((await used.textContent()) ?? '')) {
            await page.reload();
            await used.waitFor();
          }
          return (await used.textContent()) ?? '';
        },
        { timeout: 20_000 },
      )
      .toMatch(/Last used(just now|1 minute ago)/);
    await page.getByText('1 of 25 active keys').waitFor();
    await audit('keys, folded history');
    await screenshot(page, 'keys-desktop-table', { fullPage: true });
  });

  it('a session that ended mid-action says so, keeps what was typed, and signs in again in place', async () => {
    await page.getByLabel('Name').fill('typed before the session ended');
    // Signed out from elsewhere: this browser's session is gone, the page does not know yet.
    expect(await page.evaluate(() => fetch('/api/v1/auth/logout', { method: 'POST' }).then((r) => r.status))).toBe(204);
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.waitFor();
    await audit('keys, session ended dialog');
    await dialog.getByLabel('Password').fill(password);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByLabel('Name').inputValue()).toBe('typed before the session ended');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Your new key “typed before the session ended”' }).waitFor();
  });

  it('a sign-out that fails is said on the page, and the person is still signed in', async () => {
    await page.route('**/api/v1/auth/logout', (route) => route.abort('connectionrefused'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Signing out failed' });
    await alert.waitFor();
    expect(await alert.isVisible()).toBe(true);
    expect(await alert.textContent()).toContain('You are still signed in.');
    await page.unroute('**/api/v1/auth/logout');
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
  });

  it('changes the password: the wrong current one is said beside it; other sessions end', async () => {
    const elsewhere = await signInElsewhere('curl/8.5.0');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
    await page.waitForURL(url('/settings/account'));
    await page.getByLabel('Current password').fill('not the password at all');
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => messageOf(page, 'Current password')).toContain('Current password is not right.');

    await page.getByLabel('Current password').fill(password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password is changed.').waitFor();
    password = newPassword;
    expect(await sessionWorks(elsewhere)).toBe(false);
    expect(await page.evaluate(() => fetch('/api/v1/auth/session').then((r) => r.status))).toBe(200);
  });

  it('lists the sessions with this one marked; signs out one, then everywhere else', async () => {
    const phone = await signInElsewhere(
      'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
    );
    const script = await signInElsewhere('curl/8.5.0');
    await page.reload();
    const list = page.getByRole('region', { name: 'Where you are signed in' });
    await list.getByRole('listitem').nth(2).waitFor();
    expect(await list.getByRole('listitem').count()).toBe(3);
    const current = list.getByRole('listitem').filter({ hasText: 'This browser' });
    expect(await current.count()).toBe(1);
    await audit('account, sessions');
    await screenshot(page, 'account-desktop', { fullPage: true });

    await list
      .getByRole('listitem')
      .filter({ hasText: 'Chrome on Android' })
      .getByRole('button', { name: 'Sign out' })
      .click();
    await page.getByText(/Signed out Chrome on Android/).waitFor();
    expect(await sessionWorks(phone)).toBe(false);
    expect(await sessionWorks(script)).toBe(true);
    expect(await list.getByRole('listitem').count()).toBe(2);

    await list.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.getByText(/Signed out everywhere else/).waitFor();
    expect(await sessionWorks(script)).toBe(false);
    expect(await list.getByRole('listitem').count()).toBe(1);
    expect(await page.evaluate(() => fetch('/api/v1/auth/session').then((r) => r.status))).toBe(200);
  });

  it('forgot password: the mail links to a page that takes the token out of the address bar', async () => {
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
    await page.goto(url('/signin'));
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(url('/forgot-password'));
    await audit('forgot password');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText(/a mail with a link to choose a new password is on its way/).waitFor();

    const mail = await inbox.next(email);
    const link = resetLinkOf(mail);
    expect(link.url.origin).toBe(server.url);
    await page.goto(link.url.href);
    await page.getByLabel('New password').waitFor();
    // The token is gone from the address bar and from this history entry.
    expect(page.url()).toBe(url('/reset-password'));
    expect(await page.evaluate(() => location.hash)).toBe('');
    await audit('reset password');
    await page.getByLabel('New password').fill(resetPassword);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText('Your new password is set').waitFor();
    password = resetPassword;

    // The link works once (followed again from the mail: a new tab).
    const again = await context.newPage();
    await again.goto(link.url.href);
    await again.getByLabel('New password').fill('yet another long passphrase');
    await again.getByRole('button', { name: 'Set the new password' }).click();
    await again.getByRole('alert').filter({ hasText: 'This link does not work' }).waitFor();
    await again.close();

    await page.goto(url('/signin'));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/'));
  });

  it('deletes the account behind a dialog that asks for the password', async () => {
    await page.goto(url('/settings/account'));
    await page.getByRole('button', { name: 'Delete account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.waitFor();
    await audit('account, delete dialog', async (narrow) => {
      if (!(await narrow.getByRole('dialog').isVisible()))
        await narrow.getByRole('button', { name: 'Delete account' }).click();
    });
    await dialog.getByLabel('Password').fill('not the password at all');
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await expect.poll(() => messageOf(page, 'Password')).toContain('Password is not right.');
    await dialog.getByLabel('Password').fill(password);
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await page.waitForURL(url('/'));
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).waitFor();
    const login = await fetch(url('/api/v1/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(401);
  });

  it('ran without a script error', () => {
    expect(pageErrors).toEqual([]);
  });
});

/** UPDATE_SCREENSHOTS=1 refreshes the ones committed under docs/ (shown in the README). */
afterAll(() => {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(docsScreenshotsDir, { recursive: true });
  copyFileSync(
    path.join(resultsDir, 'screenshots', 'account-desktop.png'),
    path.join(docsScreenshotsDir, 'account.png'),
  );
});
