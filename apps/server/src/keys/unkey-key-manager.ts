import { apiKeyPrefix, isWellFormedUnkeyKey, unkeyKeyMaxLength, unkeyKeyMinLength } from '@releases/contract';
import { Unkey } from '@unkey/api';
import {
  ConnectionError,
  NotFoundErrorResponse,
  RequestAbortedError,
  RequestTimeoutError,
  ResponseValidationError,
  UnkeyError,
} from '@unkey/api/models/errors';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.js';
import { withDeadline } from '../kernel/deadline.js';
import { OutageLog } from '../kernel/outage-log.js';
import type { UnkeyConfig } from '../config.js';
import type { Metrics, UnkeyOperation, UnkeyOutcome } from '../metrics/metrics.js';
import type { ApiKeyRecord, ApiKeyStore } from '../db/interface.js';
import { hashSecret, newId } from '../kernel/crypto.js';
import { displayStart } from './api-key-format.js';
import {
  KeyManagerUnavailableError,
  type CreateKeyInput,
  type CreateKeyResult,
  type KeyManager,
  type KeyVerification,
} from './key-manager.js';
import type { KeyUsageRecorder } from './key-usage.js';
import { VerificationCache } from './verification-cache.js';

type RequestOptions = NonNullable<Parameters<Unkey['keys']['verifyKey']>[1]>;
type RetryConfig = NonNullable<RequestOptions['retries']>;

/** 32 random bytes: `rls_` + about 44 base58 characters, well inside the 16..64 the server accepts. */
const keyByteLength = 32;
/** Unkey joins prefix and body with `_`: the prefix is ours without its underscore. */
const unkeyPrefix = apiKeyPrefix.replace(/_$/, '');

/**
 * The SDK prints every request, headers included (`Authorization: Bearer <root key>`), to the console when
 * `UNKEY_DEBUG` is set in the environment and no logger is given. Giving it one that writes nothing keeps the
 * root key out of any output, whatever the environment says.
 */
const silentDebugLogger = { group: () => undefined, groupEnd: () => undefined, log: () => undefined };

export interface UnkeyKeyManagerOptions {
  unkey: UnkeyConfig;
  keys: ApiKeyStore;
  usage: KeyUsageRecorder;
  clock: Clock;
  logger: Logger;
  /** Told how long each call to Unkey took, and how it ended. */
  metrics: Pick<Metrics, 'unkeyCall'>;
  /** How long a positive answer is reused. Bounds how late a revocation is seen by another instance (≤ 5 s). */
  cacheTtlMs: number;
}

/**
 * Keys issued and verified by Unkey (SPEC §4) through its official SDK. Unkey holds the secret; our database
 * holds each key's metadata and its Unkey id (`external_id`), and stays the authority on who owns a key and
 * whether we revoked it. Every doubt fails closed: an answer we cannot read, or a VALID key we have no row
 * for, is never a pass.
 */
export class UnkeyKeyManager implements KeyManager {
  readonly kind = 'unkey';
  private readonly client: Unkey;
  private readonly timeoutMs: number;
  /** Passes only: a refusal is always asked again. */
  private readonly cache: VerificationCache;
  /** One Unkey call per key at a time: a burst with a new key costs one verification, not one per request. */
  private readonly inflight = new Map<string, Promise<KeyVerification>>();
  /**
   * Verification is repeatable (at worst it spends one more credit at Unkey), so a quick failure (connection
   * reset, a 5xx from an edge) is retried, but only early in the budget, a short pause apart: never a slow
   * attempt (a hang uses the whole budget once), and never past `UNKEY_TIMEOUT`, which bounds the whole call.
   */
  private readonly verifyRetries: RetryConfig;
  /** Deleting is idempotent (a second delete is NOT_FOUND, which counts as done): retried like verification. */
  private readonly deleteRetries: RetryConfig;
  /**
   * Creating is not idempotent: a retry after a lost answer could make a second key at Unkey. Not retried;
   * the user sees a 503 and tries again. (A key Unkey made without our knowing has no row here, so our
   * verification refuses it, and its plaintext never reached anyone.)
   */
  private readonly createRetries: RetryConfig = { strategy: 'none' };

  /** Logged once per outage, with the operation, Unkey's status and request id (never a key). */
  private readonly outages: OutageLog;

  constructor(private readonly options: UnkeyKeyManagerOptions) {
    this.cache = new VerificationCache({ ttlMs: options.cacheTtlMs, clock: options.clock });
    this.outages = new OutageLog('Unkey (the key manager)', options.logger);
    this.timeoutMs = options.unkey.timeoutMs;
    const quickRetries: RetryConfig = {
      strategy: 'backoff',
      backoff: {
        initialInterval: 25,
        maxInterval: 100,
        exponent: 2,
        maxElapsedTime: Math.min(250, Math.floor(this.timeoutMs / 4)),
      },
      retryConnectionErrors: true,
    };
    this.verifyRetries = quickRetries;
    this.deleteRetries = quickRetries;
    this.client = new Unkey({
      rootKey: options.unkey.rootKey,
      serverURL: options.unkey.baseUrl,
      // The SDK's own timeout applies per attempt, so it cannot bound retries: every call below passes a
      // signal for its whole deadline instead (which turns this off). Kept as the bound for any call that
      // does not, and the SDK's default retry policy (backoff for up to 10 s) is replaced for the same reason.
      timeoutMs: this.timeoutMs,
      retryConfig: { strategy: 'none' },
      debugLogger: silentDebugLogger,
    });
  }

  async verify(key: string): Promise<KeyVerification> {
    // No checksum on Unkey keys: the shape is all we can judge before asking.
    if (!isWellFormedUnkeyKey(key)) return { valid: false, failure: 'malformed' };

    const keyHash = hashSecret(key);
    const now = this.options.clock.now();
    const cached = this.cache.recall(keyHash);
    if (cached) return this.pass(cached, now);

    const pending = this.inflight.get(keyHash);
    if (pending) return pending;
    const verification = this.verifyAtUnkey(key, keyHash).finally(() => this.inflight.delete(keyHash));
    this.inflight.set(keyHash, verification);
    return verification;
  }

  private async verifyAtUnkey(key: string, keyHash: string): Promise<KeyVerification> {
    const ticket = this.cache.ticket();
    let data;
    try {
      ({ data } = await this.withDeadline('keys.verifyKey', (signal) =>
        this.client.keys.verifyKey({ key }, { signal, retries: this.verifyRetries, retryCodes: ['5XX'] }),
      ));
    } catch (error) {
      throw unavailable('keys.verifyKey', error);
    }

    const now = this.options.clock.now();
    switch (data.code) {
      case 'VALID':
        break;
      case 'NOT_FOUND':
        return { valid: false, failure: 'unknown' };
      case 'EXPIRED':
        return {
          valid: false,
          failure: 'expired',
          ...(data.expires === undefined ? {} : { expiredAt: new Date(data.expires).toISOString() }),
        };
      case 'DISABLED':
        return { valid: false, failure: 'disabled' };
      case 'RATE_LIMITED': {
        const retryAfterSeconds = secondsUntilReset(data.ratelimits, now);
        return { valid: false, failure: 'rate-limited', ...(retryAfterSeconds ? { retryAfterSeconds } : {}) };
      }
      case 'USAGE_EXCEEDED':
        return { valid: false, failure: 'usage-exceeded' };
      case 'FORBIDDEN':
      case 'INSUFFICIENT_PERMISSIONS':
        return { valid: false, failure: 'forbidden' };
      default:
        // A code this SDK version does not know (the SDK passes unknown strings through): refused.
        return { valid: false, failure: 'unknown' };
    }
    // VALID must say so twice and name the key; anything else is an answer we cannot trust.
    if (data.valid !== true || data.keyId === undefined) {
      throw this.unusable(
        new KeyManagerUnavailableError('Unkey keys.verifyKey answered VALID without valid=true and a keyId.'),
      );
    }

    // Our row decides the owner, and refuses what we never issued (a key of another API in the same Unkey
    // workspace, when the root key may verify those) or have revoked.
    const record = await this.options.keys.findByExternalId(data.keyId);
    if (!record) return { valid: false, failure: 'unknown' };
    if (record.revokedAt) return { valid: false, failure: 'revoked' };
    const expiresAt = record.expiresAt === null ? Infinity : Date.parse(record.expiresAt);
    if (record.expiresAt !== null && expiresAt <= now) {
      return { valid: false, failure: 'expired', expiredAt: record.expiresAt };
    }

    this.cache.keep(keyHash, record, ticket);
    return this.pass(record, now);
  }

  private pass(record: ApiKeyRecord, now: number): KeyVerification {
    this.options.usage.note(record.id, now, record.lastUsedAt);
    return { valid: true, keyId: record.id, ownerId: record.ownerId };
  }

  async create(input: CreateKeyInput): Promise<CreateKeyResult> {
    const now = this.options.clock.now();
    const createdAt = new Date(now).toISOString();
    const expiresAt = input.lifetimeMs === null ? null : new Date(now + input.lifetimeMs);
    // Not the guard (the insert below counts atomically): it spares Unkey a key we would refuse anyway.
    if (input.maxActive !== undefined && input.ownerId !== null) {
      const active = (await this.options.keys.list(input.ownerId)).filter(
        (key) => key.revokedAt === null && (key.expiresAt === null || key.expiresAt > createdAt),
      );
      if (active.length >= input.maxActive) return { created: false, reason: 'too-many-active-keys' };
    }

    const id = newId('key');
    let created;
    try {
      ({ data: created } = await this.withDeadline('keys.createKey', (signal) =>
        this.client.keys.createKey(
          {
            apiId: this.options.unkey.apiId,
            prefix: unkeyPrefix,
            byteLength: keyByteLength,
            // Our id, not the user's label: it ties the key to our row in Unkey's dashboard, and the label
            // stays with us.
            name: id,
            ...(expiresAt ? { expires: expiresAt.getTime() } : {}),
            enabled: true,
            // Unkey keeps only a hash too: nobody can read the key back, there or here.
            recoverable: false,
          },
          { signal, retries: this.createRetries },
        ),
      ));
    } catch (error) {
      throw unavailable('keys.createKey', error);
    }

    if (!isWellFormedUnkeyKey(created.key)) {
      // Our verification would refuse it as malformed: do not hand it out, and do not leave it working.
      await this.compensate(created.keyId, 'it does not have the rls_ + base58 shape');
      throw this.unusable(
        new KeyManagerUnavailableError(
          `Unkey keys.createKey returned a key that is not ${apiKeyPrefix} + ${unkeyKeyMinLength}..${unkeyKeyMaxLength} base58 characters: check the API's settings.`,
        ),
      );
    }

    const record: ApiKeyRecord = {
      id,
      name: input.name,
      ownerId: input.ownerId,
      // The column is NOT NULL UNIQUE; a hash keeps it meaningful without ever storing the key.
      keyHash: hashSecret(created.key),
      externalId: created.keyId,
      displayStart: displayStart(created.key),
      createdAt,
      expiresAt: expiresAt ? expiresAt.toISOString() : null,
      revokedAt: null,
      lastUsedAt: null,
    };
    let inserted;
    try {
      inserted = await this.options.keys.insert(
        record,
        input.maxActive === undefined ? {} : { maxActive: input.maxActive },
      );
    } catch (error) {
      await this.compensate(created.keyId, 'our database did not record it');
      throw error;
    }
    if (!inserted.inserted) {
      await this.compensate(created.keyId, 'the owner reached the active key limit meanwhile');
      return { created: false, reason: inserted.reason };
    }
    return { created: true, key: created.key, record };
  }

  /**
   * Deletes a key Unkey made that we will not hand out. Best effort: if it fails, the key still cannot pass
   * here (no row), and nobody has its plaintext; the warning names it for whoever tidies the workspace.
   */
  private async compensate(externalId: string, why: string): Promise<void> {
    try {
      await this.deleteAtUnkey(externalId);
    } catch (error) {
      this.options.logger.warn(
        { externalId, reason: error instanceof Error ? error.message : String(error) },
        `could not delete an Unkey key we did not issue (${why}); it cannot pass verification here`,
      );
    }
  }

  async revoke(id: string): Promise<ApiKeyRecord | undefined> {
    const record = await this.options.keys.findById(id);
    if (!record) return undefined;
    // Revoked here means deleted at Unkey already: we only mark a key once Unkey has let it go.
    if (record.revokedAt) return record;
    // At Unkey first: if it cannot be reached, nothing changes here and the caller gets a 503 to retry, rather
    // than a key we call revoked that still works at Unkey. (A key from before KEY_MANAGER=unkey has no id.)
    if (record.externalId !== null) await this.deleteAtUnkey(record.externalId);
    const revoked = await this.options.keys.revoke(id, new Date(this.options.clock.now()).toISOString());
    // This instance sees its own revocation at once; others within the cache TTL.
    this.cache.forget(id);
    return revoked;
  }

  /** Deletes a key at Unkey (soft delete: Unkey keeps its audit trail). Already gone counts as done. */
  private async deleteAtUnkey(keyId: string): Promise<void> {
    try {
      await this.withDeadline('keys.deleteKey', (signal) =>
        this.client.keys.deleteKey(
          { keyId, permanent: false },
          { signal, retries: this.deleteRetries, retryCodes: ['5XX'] },
        ),
      );
    } catch (error) {
      // Only Unkey's own documented 404 body: a bare 404 from a wrong UNKEY_BASE_URL is not "deleted".
      if (error instanceof NotFoundErrorResponse) return;
      throw unavailable('keys.deleteKey', error);
    }
  }

  /** An answer from Unkey we cannot use: counted as Unkey failing (logged once per outage), and thrown. */
  private unusable(error: KeyManagerUnavailableError): KeyManagerUnavailableError {
    this.outages.failed(error);
    return error;
  }

  /**
   * Runs one SDK call, retries included, within `UNKEY_TIMEOUT`. The signal aborts the request in flight (an
   * abort, unlike a timeout, also ends the SDK's retry loop); the race makes the bound hold whatever the SDK
   * does meanwhile.
   */
  private async withDeadline<T>(operation: UnkeyOperation, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const started = performance.now();
    let outcome: UnkeyOutcome = 'error';
    try {
      const result = await withDeadline(this.timeoutMs, run, () => {
        outcome = 'timeout';
        return new KeyManagerUnavailableError(`Unkey ${operation} did not answer within ${this.timeoutMs} ms.`);
      });
      outcome = 'ok';
      this.outages.answered();
      return result;
    } catch (error) {
      // Unkey's own documented 404 is an answer; anything else is Unkey not answering usably.
      if (error instanceof NotFoundErrorResponse) this.outages.answered();
      else this.outages.failed(unavailable(operation, error));
      throw error;
    } finally {
      this.options.metrics.unkeyCall(operation, outcome, performance.now() - started);
    }
  }

  close(): Promise<void> {
    return this.options.usage.close();
  }
}

/**
 * What to wait before trying again after RATE_LIMITED: the latest reset among the exceeded limits. The SDK
 * documents `reset` as "reset duration in milliseconds" while Unkey's API has sent a Unix time in
 * milliseconds; a value past 2001 is read as the time, anything smaller as the duration.
 */
function secondsUntilReset(
  ratelimits: ReadonlyArray<{ exceeded: boolean; reset: number }> | undefined,
  now: number,
): number | undefined {
  const resets = (ratelimits ?? []).filter((limit) => limit.exceeded).map((limit) => limit.reset);
  if (resets.length === 0) return undefined;
  const reset = Math.max(...resets);
  const waitMs = reset > 1e12 ? reset - now : reset;
  if (!Number.isFinite(waitMs) || waitMs <= 0) return undefined;
  return Math.min(3600, Math.ceil(waitMs / 1000));
}

/**
 * Why a call to Unkey failed, as a 503 the operator can act on. Built from facts (operation, status, Unkey's
 * request id), never from the SDK's error itself: that carries response bodies and is not ours to log.
 */
function unavailable(operation: string, error: unknown): KeyManagerUnavailableError {
  if (error instanceof KeyManagerUnavailableError) return error;
  let why: string;
  if (error instanceof ResponseValidationError) {
    why = `answered HTTP ${error.statusCode} with a body that is not the documented shape`;
  } else if (error instanceof UnkeyError) {
    const requestId = unkeyRequestId(error);
    // 401/403 at Unkey are about us, not the caller's key: our root key is wrong or lacks a permission.
    const hint =
      error.statusCode === 401 || error.statusCode === 403 ? ': check UNKEY_ROOT_KEY and its permissions' : '';
    why = `answered HTTP ${error.statusCode}${requestId ? ` (Unkey request ${requestId})` : ''}${hint}`;
  } else if (error instanceof RequestTimeoutError || error instanceof RequestAbortedError) {
    why = 'did not answer in time';
  } else if (error instanceof ConnectionError) {
    why = 'could not be reached';
  } else if (error instanceof SyntaxError) {
    why = 'answered with a body that is not JSON';
  } else {
    why = `failed (${error instanceof Error ? error.name : typeof error})`;
  }
  return new KeyManagerUnavailableError(`Unkey ${operation} ${why}.`);
}

function unkeyRequestId(error: UnkeyError): string | undefined {
  const meta: unknown = (error as { meta?: unknown }).meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const requestId: unknown = (meta as { requestId?: unknown }).requestId;
  return typeof requestId === 'string' && /^[\w.:-]{1,128}$/.test(requestId) ? requestId : undefined;
}
