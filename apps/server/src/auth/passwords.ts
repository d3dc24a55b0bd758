import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { serviceUnavailable } from '../kernel/http-problem.js';

/**
 * Password hashing: scrypt from `node:crypto` with SPEC §4's cost (N=2^17, r=8, p=1: about 128 MiB and a few
 * hundred milliseconds per hash; `PASSWORD_HASH_COST` lowers N for tests only). Stored in the PHC string form,
 * `$scrypt$ln=17,r=8,p=1$<salt>$<hash>`, so a later change of cost still verifies the hashes made before it.
 */
const r = 8;
const p = 1;
const saltBytes = 16;
const hashBytes = 32;

/**
 * At most this many hashes run at once, and at most `maxWaiting` wait: each hash holds 128 MiB and a thread
 * of libuv's pool, so a burst of logins from many addresses must queue, and past the queue be told to come
 * back (503), rather than exhaust memory or starve the pool's other users (file system, DNS).
 */
const maxConcurrentHashes = 2;
const maxWaiting = 64;

/** The hash slots, shared by every hasher of the process (they share its memory and thread pool). */
let running = 0;
const waiting: Array<() => void> = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= maxConcurrentHashes) {
    if (waiting.length >= maxWaiting)
      throw serviceUnavailable('Too many sign-ins are being checked at once. Try again shortly.');
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** Told of each derivation's cost (log2 of N): the metrics' `passwordHash`. */
export type OnDerive = (logN: number) => void;

function derive(
  password: string,
  salt: Buffer,
  params: { logN: number; r: number; p: number },
  onDerive: OnDerive,
): Promise<Buffer> {
  const options: ScryptOptions = {
    N: 2 ** params.logN,
    r: params.r,
    p: params.p,
    // scrypt needs 128 * N * r * p bytes; Node's default ceiling (32 MiB) is below that.
    maxmem: 256 * 2 ** params.logN * params.r * params.p,
  };
  // NFKC: the same password typed on two keyboards (composed or decomposed accents) is the same password.
  const normalized = password.normalize('NFKC');
  return withHashSlot(() => {
    onDerive(params.logN);
    return new Promise((resolve, reject) =>
      scrypt(normalized, salt, hashBytes, options, (error, key) => (error ? reject(error) : resolve(key))),
    );
  });
}

const storedShape = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** Hashes and checks passwords at one cost (log2 of scrypt's N). */
export class PasswordHasher {
  /**
   * A hash of a password nobody knows, made once, so that a login for an unknown email does exactly the work
   * of a wrong password: the response time does not tell which emails have accounts.
   */
  private decoyHash: Promise<string> | undefined;

  constructor(
    private readonly logN: number,
    private readonly onDerive: OnDerive = () => undefined,
  ) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(saltBytes);
    const hash = await derive(password, salt, { logN: this.logN, r, p }, this.onDerive);
    return `$scrypt$ln=${this.logN},r=${r},p=${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
  }

  /**
   * Checks a password against a stored hash in constant time. With no stored hash (unknown email, or an
   * account without a password) the same work is done against a decoy and the answer is false.
   */
  async verify(password: string, stored: string | null | undefined): Promise<boolean> {
    const match = storedShape.exec(stored ?? '') ?? storedShape.exec(await this.decoy());
    if (!match) return false;
    const [, logN, rounds, parallel, salt, hash] = match as unknown as [string, string, string, string, string, string];
    const expected = Buffer.from(hash, 'base64url');
    const actual = await derive(
      password,
      Buffer.from(salt, 'base64url'),
      { logN: Number(logN), r: Number(rounds), p: Number(parallel) },
      this.onDerive,
    );
    const same = actual.length === expected.length && timingSafeEqual(actual, expected);
    return same && stored !== null && stored !== undefined && storedShape.test(stored);
  }

  /** Makes the decoy ahead of the first login, so that login is not slower than the rest. */
  prepareDecoy(): Promise<void> {
    return this.decoy().then(() => undefined);
  }

  private decoy(): Promise<string> {
    // A failed hash (scrypt out of memory under load) is not kept: the next login makes the decoy again.
    this.decoyHash ??= this.hash(randomBytes(32).toString('base64url')).catch((error: unknown) => {
      this.decoyHash = undefined;
      throw error;
    });
    return this.decoyHash;
  }
}
