import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { z } from 'zod';

/**
 * A small local Unkey for tests: the three endpoints the `unkey` key manager calls, with exactly the request
 * and response shapes `@unkey/api` 2.x sends and reads (from its source: `funcs/keys*.ts` and
 * `models/components/v2keys*.ts`):
 *
 * - every call is `POST {serverURL}/v2/keys.<operation>` with `Authorization: Bearer <root key>`,
 *   `Content-Type: application/json`, `Accept: application/json` and a JSON body;
 * - success is 200 `application/json` `{ meta: { requestId }, data: ... }`;
 * - errors are `{ meta: { requestId }, error: { title, detail, status, type } }` with the HTTP status.
 *
 * Anything a request gets wrong is recorded in `violations` (and answered 400 as Unkey would), so a test can
 * assert that the SDK, as we drive it, sends what the real service expects.
 */

const verifyKeyRequest = z
  .object({
    key: z.string().min(1),
    tags: z.array(z.string()).optional(),
    permissions: z.string().optional(),
    credits: z.object({ cost: z.number().int() }).strict().optional(),
    ratelimits: z.array(z.unknown()).optional(),
    migrationId: z.string().optional(),
  })
  .strict();

const createKeyRequest = z
  .object({
    apiId: z.string().regex(/^api_\w+$/),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9]{1,16}$/)
      .optional(),
    name: z.string().min(1).max(200).optional(),
    byteLength: z.number().int().min(16).max(255),
    externalId: z.string().optional(),
    meta: z.record(z.unknown()).optional(),
    roles: z.array(z.string()).optional(),
    permissions: z.array(z.string()).optional(),
    expires: z.number().int().optional(),
    credits: z.unknown().optional(),
    ratelimits: z.array(z.unknown()).optional(),
    enabled: z.boolean(),
    recoverable: z.boolean(),
  })
  .strict();

const deleteKeyRequest = z.object({ keyId: z.string().regex(/^key_\w+$/), permanent: z.boolean() }).strict();

const updateKeyRequest = z
  .object({ keyId: z.string().regex(/^key_\w+$/), enabled: z.boolean().optional() })
  .passthrough();

export type UnkeyOperation = 'keys.createKey' | 'keys.verifyKey' | 'keys.deleteKey' | 'keys.updateKey';

/** How the stand-in misbehaves for one operation, until told otherwise. */
export type Misbehaviour =
  { kind: 'hang' } | { kind: 'status'; status: number } | { kind: 'not-json' } | { kind: 'wrong-shape' };

export interface StoredKey {
  keyId: string;
  key: string;
  apiId: string;
  name: string | undefined;
  expires: number | undefined;
  enabled: boolean;
  deleted: boolean;
  /** Answer this verification code instead of working it out (for codes the stand-in cannot cause). */
  forcedCode?: string;
}

export interface RecordedRequest {
  operation: string;
  body: unknown;
}

export interface UnkeyStandin {
  url: string;
  rootKey: string;
  apiId: string;
  requests: RecordedRequest[];
  violations: string[];
  keys: Map<string, StoredKey>;
  /** Requests of one operation so far. */
  count(operation: UnkeyOperation): number;
  misbehave(operation: UnkeyOperation, how: Misbehaviour | undefined): void;
  /** Holds createKey answers until this many are waiting, so concurrent creations overlap for sure. */
  holdCreates(count: number): void;
  /** A key Unkey knows but our service never issued (as if made in Unkey's dashboard). */
  addForeignKey(): StoredKey;
  close(): Promise<void>;
}

const base58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function toBase58(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (value > 0n) {
    out = base58[Number(value % 58n)]! + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = '1' + out;
  }
  return out;
}

function randomId(prefix: string): string {
  return `${prefix}_${toBase58(randomBytes(12))}`;
}

export async function startUnkeyStandin(options: { rootKey?: string; apiId?: string } = {}): Promise<UnkeyStandin> {
  const rootKey = options.rootKey ?? `unkey_${toBase58(randomBytes(24))}`;
  const apiId = options.apiId ?? 'api_standin1234';
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const keys = new Map<string, StoredKey>();
  const byId = new Map<string, StoredKey>();
  const misbehaviours = new Map<string, Misbehaviour>();
  const sockets = new Set<Socket>();
  let heldCreates: Array<() => void> = [];
  let holdUntil = 0;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const ok = (res: ServerResponse, data: unknown) => send(res, 200, { meta: { requestId: randomId('req') }, data });
  const fail = (res: ServerResponse, status: number, title: string, detail: string) =>
    send(res, status, {
      meta: { requestId: randomId('req') },
      error: { title, detail, status, type: `https://unkey.com/docs/errors/${title.toLowerCase().replace(/ /g, '_')}` },
    });

  const store = (stored: StoredKey) => {
    keys.set(stored.key, stored);
    byId.set(stored.keyId, stored);
    return stored;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const operation = /^\/v2\/(keys\.\w+)$/.exec(req.url ?? '')?.[1];
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    requests.push({ operation: operation ?? req.url ?? '', body });

    const problems: string[] = [];
    if (req.method !== 'POST') problems.push(`method ${req.method}`);
    if (!operation) problems.push(`path ${req.url}`);
    if (req.headers['content-type'] !== 'application/json')
      problems.push(`content-type ${req.headers['content-type']}`);
    if (req.headers.accept !== 'application/json') problems.push(`accept ${req.headers.accept}`);
    if (req.headers.authorization !== `Bearer ${rootKey}`) {
      violations.push(`${operation}: not authorised with the root key as Bearer`);
      return fail(res, 401, 'Unauthorized', 'The root key is missing or invalid.');
    }
    if (problems.length > 0) {
      violations.push(`${operation}: ${problems.join(', ')}`);
      return fail(res, 400, 'Bad Request', problems.join(', '));
    }

    const how = misbehaviours.get(operation!);
    if (how?.kind === 'hang') return; // never answers; the socket is destroyed on close()
    if (how?.kind === 'status') return fail(res, how.status, 'Internal Server Error', 'The stand-in was told to fail.');
    if (how?.kind === 'not-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('<html>upstream is having a bad day</html>');
      return;
    }
    if (how?.kind === 'wrong-shape') return send(res, 200, { meta: { requestId: 'req_x' }, data: { valid: 'yes' } });

    switch (operation) {
      case 'keys.verifyKey': {
        const parsed = verifyKeyRequest.safeParse(body);
        if (!parsed.success) return badRequest(res, operation, parsed.error);
        const stored = keys.get(parsed.data.key);
        if (!stored || stored.deleted || stored.apiId !== apiId) return ok(res, { valid: false, code: 'NOT_FOUND' });
        const described = {
          keyId: stored.keyId,
          ...(stored.name ? { name: stored.name } : {}),
          ...(stored.expires ? { expires: stored.expires } : {}),
          enabled: stored.enabled,
        };
        if (stored.forcedCode) {
          const ratelimits =
            stored.forcedCode === 'RATE_LIMITED'
              ? [
                  {
                    exceeded: true,
                    id: 'rl_standin',
                    name: 'requests',
                    limit: 10,
                    duration: 60_000,
                    reset: Date.now() + 30_000,
                    remaining: 0,
                    autoApply: true,
                  },
                ]
              : undefined;
          return ok(res, {
            valid: stored.forcedCode === 'VALID',
            code: stored.forcedCode,
            ...described,
            ...(ratelimits ? { ratelimits } : {}),
          });
        }
        if (!stored.enabled) return ok(res, { valid: false, code: 'DISABLED', ...described });
        if (stored.expires !== undefined && stored.expires <= Date.now()) {
          return ok(res, { valid: false, code: 'EXPIRED', ...described });
        }
        return ok(res, { valid: true, code: 'VALID', ...described });
      }
      case 'keys.createKey': {
        const parsed = createKeyRequest.safeParse(body);
        if (!parsed.success) return badRequest(res, operation, parsed.error);
        if (parsed.data.apiId !== apiId) return fail(res, 404, 'Not Found', 'The API does not exist.');
        const stored = store({
          keyId: randomId('key'),
          key: `${parsed.data.prefix ? `${parsed.data.prefix}_` : ''}${toBase58(randomBytes(parsed.data.byteLength))}`,
          apiId,
          name: parsed.data.name,
          expires: parsed.data.expires,
          enabled: parsed.data.enabled,
          deleted: false,
        });
        const answer = () => ok(res, { keyId: stored.keyId, key: stored.key });
        if (holdUntil > 0) {
          heldCreates.push(answer);
          if (heldCreates.length >= holdUntil) {
            const release = heldCreates;
            heldCreates = [];
            holdUntil = 0;
            for (const go of release) go();
          }
          return;
        }
        return answer();
      }
      case 'keys.deleteKey': {
        const parsed = deleteKeyRequest.safeParse(body);
        if (!parsed.success) return badRequest(res, operation, parsed.error);
        const stored = byId.get(parsed.data.keyId);
        if (!stored || stored.deleted) return fail(res, 404, 'Not Found', 'The key does not exist.');
        stored.deleted = true;
        return ok(res, {});
      }
      case 'keys.updateKey': {
        const parsed = updateKeyRequest.safeParse(body);
        if (!parsed.success) return badRequest(res, operation, parsed.error);
        const stored = byId.get(parsed.data.keyId);
        if (!stored || stored.deleted) return fail(res, 404, 'Not Found', 'The key does not exist.');
        if (parsed.data.enabled !== undefined) stored.enabled = parsed.data.enabled;
        return ok(res, {});
      }
      default:
        violations.push(`unexpected operation ${operation}`);
        return fail(res, 404, 'Not Found', `No route ${req.url}`);
    }
  }

  function badRequest(res: ServerResponse, operation: string, error: z.ZodError): void {
    const detail = error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    violations.push(`${operation}: ${detail}`);
    fail(res, 400, 'Bad Request', detail);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      violations.push(`stand-in failed: ${String(error)}`);
      res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    rootKey,
    apiId,
    requests,
    violations,
    keys,
    count: (operation) => requests.filter((request) => request.operation === operation).length,
    misbehave(operation, how) {
      if (how) misbehaviours.set(operation, how);
      else misbehaviours.delete(operation);
    },
    holdCreates(count) {
      holdUntil = count;
    },
    addForeignKey() {
      return store({
        keyId: randomId('key'),
        key: `rls_${toBase58(randomBytes(32))}`,
        apiId,
        name: 'made elsewhere',
        expires: undefined,
        enabled: true,
        deleted: false,
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on (for "connection refused"). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
