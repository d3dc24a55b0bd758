import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chooseChromium, debianChromium, launchChromium } from './index.js';

describe('choosing the browser', () => {
  const onlyDebian = (file: string) => file === debianChromium;
  const nothing = () => false;

  it('takes CHROMIUM_PATH first, and refuses one that is not there', () => {
    const all = () => true;
    expect(chooseChromium({ CHROMIUM_PATH: '/opt/chrome' }, all)).toMatchObject({
      source: 'CHROMIUM_PATH',
      executablePath: '/opt/chrome',
    });
    expect(() => chooseChromium({ CHROMIUM_PATH: '/opt/chrome' }, nothing)).toThrow(/CHROMIUM_PATH is \/opt\/chrome/);
  });

  it("takes Debian's when it is installed", () => {
    expect(chooseChromium({}, onlyDebian)).toMatchObject({ source: 'debian', executablePath: debianChromium });
  });

  it("falls back to the lockfile's on x86-64 Linux, and says what to do elsewhere", () => {
    expect(chooseChromium({}, nothing, 'linux-x64')).toMatchObject({ source: 'lockfile' });
    expect(chooseChromium({}, nothing, 'linux-x64').description).toMatch(/@sparticuz\/chromium \d+/);
    expect(() => chooseChromium({}, nothing, 'darwin-arm64')).toThrow(
      /apt-get install chromium\) or set CHROMIUM_PATH/,
    );
  });
});

describe("the lockfile's Chromium", () => {
  it('unpacks, starts with the shared flags and loads a page, whether or not Debian has one here', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ok</title><p id="p">from loopback</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const lockfile = chooseChromium({}, (file) => file !== debianChromium && existsSync(file));
    expect(lockfile.source).toBe('lockfile');
    const browser = await launchChromium(lockfile);
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await page.textContent('#p')).toBe('from loopback');
      expect(browser.version()).toMatch(/^\d+\./);
    } finally {
      await browser.close();
      server.close();
    }
  });
});
