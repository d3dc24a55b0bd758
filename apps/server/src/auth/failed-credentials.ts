import { ipKeyGenerator } from 'express-rate-limit';
import type { Clock } from '../kernel/clock.js';
import { hashSecret } from '../kernel/crypto.js';
import type { HttpProblem } from '../kernel/http-problem.js';
import { rateLimitedProblem } from '../rate-limit/quotas.js';
import type { PresentedCredential } from './credentials.js';
import { BoundedCache } from '../kernel/bounded-cache.js';

/** How long a credential that verified stays "proven" on this instance; renewed by each success. */
const provenCredentialTtlMs = 60 * 60_000;
const maxProvenCredentials = 10_000;
/** Addresses whose failures are counted at once, at most (the least recently failing are dropped first). */
const maxCountedAddresses = 100_000;

/** Fingerprints by credential: each request's credential is hashed once, however many steps ask. */
const fingerprints = new WeakMap<PresentedCredential, string>();

/** A credential's SHA-256 (never the secret itself), for the credentials that hold one. */
function fingerprint(credential: PresentedCredential): string | undefined {
  let known = fingerprints.get(credential);
  if (known !== undefined) return known;
  if (credential.kind === 'api-key') known = `key:${hashSecret(credential.key)}`;
  else if (credential.kind === 'session') known = `session:${hashSecret(credential.token)}`;
  else return undefined;
  fingerprints.set(credential, known);
  return known;
}

interface FailureWindow {
  failures: number;
  resetsAt: number;
}

/**
 * Runs around the one credential lookup (`admission.ts`): once an address has presented more failed
 * credentials in a window than an anonymous caller may make requests, its further credentialed requests are
 * refused without touching the database or the key manager, so a flood of made-up (even checksum-valid) keys
 * costs no lookups. Only failures count, and a credential that has proved good on this instance passes
 * regardless: the flood cannot lock out a real caller who shares the attacker's address (a NAT, a proxy).
 *
 * Counted in this process's memory, not Redis: it protects this instance's path to the database, and a shared
 * count would add a round trip to every request that carries a credential.
 */
export class FailedCredentialGuard {
  private readonly proven = new BoundedCache<string, true>({ max: maxProvenCredentials, ttlMs: provenCredentialTtlMs });
  private readonly failures = new BoundedCache<string, FailureWindow>({ max: maxCountedAddresses });

  constructor(private readonly options: { windowMs: number; limit: number; clock: Clock }) {}

  /** Before the lookup: the 429 for an address over its failure quota, unless this credential proved good lately. */
  refusal(credential: PresentedCredential, address: string): HttpProblem | undefined {
    if (credential.kind === 'none') return undefined;
    const known = fingerprint(credential);
    if (known !== undefined && this.proven.has(known)) return undefined;
    const window = this.failures.get(ipKeyGenerator(address));
    const now = this.options.clock.now();
    if (!window || window.resetsAt <= now || window.failures < this.options.limit) return undefined;
    return rateLimitedProblem(
      Math.ceil((window.resetsAt - now) / 1000),
      'Too many requests with invalid credentials from this address.',
    );
  }

  /** After the lookup: remembers a credential that proved good, or counts a failure against the address. */
  learn(credential: PresentedCredential, address: string, good: boolean): void {
    if (credential.kind === 'none') return;
    const known = fingerprint(credential);
    if (good) {
      if (known !== undefined) this.proven.set(known, true);
      return;
    }
    if (known !== undefined) this.proven.delete(known);
    const key = ipKeyGenerator(address);
    const now = this.options.clock.now();
    const window = this.failures.get(key);
    if (window && window.resetsAt > now) window.failures++;
    else this.failures.set(key, { failures: 1, resetsAt: now + this.options.windowMs });
  }
}
