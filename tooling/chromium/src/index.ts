import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';

/**
 * One launch for every browser test (the SDK's and the web app's): headless, as root (so without the
 * sandbox), and without Chromium's calls home, which this machine's closed network refuses many at a time.
 * The lockfile's Chromium (@sparticuz/chromium) needs nothing more here: its own list of flags is for AWS
 * Lambda (`--single-process`, `--no-zygote`) and turns web security off (`--disable-web-security`), which
 * would hide the CORS behaviour the SDK's browser test checks.
 */
export const chromiumArgs: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where Debian's package puts Chromium (`apt-get install chromium`). */
export const debianChromium = '/usr/bin/chromium';

/** Which Chromium a test run uses, and why. */
export interface ChromiumChoice {
  /** `CHROMIUM_PATH` when set, else Debian's when installed, else the one the lockfile pins. */
  source: 'CHROMIUM_PATH' | 'debian' | 'lockfile';
  /** The binary; for the lockfile's, where it is unpacked on first use. */
  executablePath: string;
  /** For the test output: which browser ran. */
  description: string;
}

const require = createRequire(import.meta.url);

/** The @sparticuz/chromium package: its version and the Brotli-compressed binary it ships. */
function lockfilePackage(): { version: string; compressed: string } {
  // The package exports only its module, not package.json: find its root from the module's path.
  const root = path.resolve(path.dirname(require.resolve('@sparticuz/chromium')), '..', '..');
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  return { version, compressed: path.join(root, 'bin', 'chromium.br') };
}

/**
 * Chooses the browser without starting it. Never a download: Debian's package, or the binary inside an npm
 * package the lockfile pins (it is built for x86-64 Linux only; elsewhere install Debian's or set
 * CHROMIUM_PATH). Throws when there is none, so a browser test never passes by not running.
 */
export function chooseChromium(
  environment: Record<string, string | undefined> = process.env,
  exists: (file: string) => boolean = existsSync,
  platform = `${process.platform}-${process.arch}`,
): ChromiumChoice {
  const configured = environment.CHROMIUM_PATH?.trim();
  if (configured) {
    if (!exists(configured)) throw new Error(`CHROMIUM_PATH is ${configured}, and there is no file there.`);
    return { source: 'CHROMIUM_PATH', executablePath: configured, description: `CHROMIUM_PATH (${configured})` };
  }
  if (exists(debianChromium)) {
    return { source: 'debian', executablePath: debianChromium, description: `Debian's (${debianChromium})` };
  }
  if (platform !== 'linux-x64') {
    throw new Error(
      `No Chromium for the browser tests: ${debianChromium} is missing, and @sparticuz/chromium ships an x86-64 Linux binary only (this is ${platform}). Install Chromium (apt-get install chromium) or set CHROMIUM_PATH.`,
    );
  }
  const { version } = lockfilePackage();
  return {
    source: 'lockfile',
    executablePath: path.join(tmpdir(), `releases-chromium-${version}`, 'chromium'),
    description: `the lockfile's (@sparticuz/chromium ${version}, unpacked in ${tmpdir()})`,
  };
}

/**
 * Unpacks the lockfile's Chromium once per version. Written under a name of its own and renamed into place,
 * so test processes that start together (vitest workers, the SDK's and the web app's suites) never run a
 * half-written binary, and a binary of another version is never reused.
 */
async function unpackLockfileChromium(target: string): Promise<void> {
  if (existsSync(target)) return;
  mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  try {
    await pipeline(
      createReadStream(lockfilePackage().compressed),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    renameSync(partial, target);
  } finally {
    rmSync(partial, { force: true });
  }
}

/** Starts the chosen Chromium through playwright-core and says which one it is on the test output. */
export async function launchChromium(choice: ChromiumChoice = chooseChromium()): Promise<Browser> {
  if (choice.source === 'lockfile') await unpackLockfileChromium(choice.executablePath);
  const browser = await chromium.launch({ executablePath: choice.executablePath, args: [...chromiumArgs] });
  console.info(`Chromium ${browser.version()}: ${choice.description}`);
  return browser;
}
