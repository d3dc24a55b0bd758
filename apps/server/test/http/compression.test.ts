import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';

/**
 * Compression (SPEC §10): Brotli or gzip by `Accept-Encoding` for bodies of 1 KB or more, `Vary:
 * Accept-Encoding`, static files sent as the build compressed them, and answers kept by the answer cache
 * compressed once. Read with node:http, which (unlike fetch) shows the bytes as they were sent.
 */
interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
  /** The body, decompressed by its Content-Encoding. */
  text: string;
}

function get(server: TestServer, pathAndQuery: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const url = new URL(pathAndQuery, server.baseUrl);
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const coding = response.headers['content-encoding'];
        const text = (
          coding === 'br' ? zlib.brotliDecompressSync(bytes) : coding === 'gzip' ? zlib.gunzipSync(bytes) : bytes
        ).toString();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes, text });
      });
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

const withoutTime = (text: string) => text.replace(/"generated_at":"[^"]+"/, '"generated_at":"<time>"');

let server: TestServer;
let webRoot: string;
beforeAll(async () => {
  webRoot = mkdtempSync(path.join(tmpdir(), 'releases-web-'));
  mkdirSync(path.join(webRoot, 'assets'));
  const script = `console.log(${JSON.stringify('x'.repeat(5_000))});`;
  writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>app</title>');
  writeFileSync(path.join(webRoot, 'assets', 'app-abc123.js'), script);
  writeFileSync(path.join(webRoot, 'assets', 'app-abc123.js.br'), zlib.brotliCompressSync(script));
  writeFileSync(path.join(webRoot, 'assets', 'app-abc123.js.gz'), zlib.gzipSync(script));
  server = await startTestServer({ webAppRoot: webRoot });
});
afterAll(async () => {
  await server.close();
  rmSync(webRoot, { recursive: true, force: true });
});

describe('answers of 1 KB or more', () => {
  const page = '/api/v1/release?limit=30';

  it.each([
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0.1, gzip', 'gzip'],
  ])(
    'go out in the coding Accept-Encoding: %s asks for (%s), the same answer as uncompressed',
    async (accept, coding) => {
      const plain = await get(server, page);
      // First request, second (kept), third (from the answer cache): compressed alike, each with its own time.
      for (let i = 0; i < 3; i++) {
        const compressed = await get(server, page, { 'accept-encoding': accept });
        expect(compressed.status).toBe(200);
        expect(compressed.headers['content-encoding']).toBe(coding);
        expect(compressed.headers.vary).toMatch(/Accept-Encoding/);
        expect(Number(compressed.headers['content-length'])).toBe(compressed.bytes.length);
        expect(compressed.bytes.length).toBeLessThan(plain.bytes.length / 3);
        expect(withoutTime(compressed.text)).toBe(withoutTime(plain.text));
        const time = (JSON.parse(compressed.text) as { data: { generated_at: string } }).data.generated_at;
        expect(Date.now() - Date.parse(time)).toBeLessThan(5_000);
      }
    },
  );

  it('go out as they are, with Vary, to a client that asks for no coding or one we do not send', async () => {
    for (const accept of [undefined, 'identity', 'deflate']) {
      const response = await get(server, page, accept === undefined ? {} : { 'accept-encoding': accept });
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.headers.vary).toMatch(/Accept-Encoding/);
      expect(Number(response.headers['content-length'])).toBe(response.bytes.length);
    }
  });

  it('are compressed alike whichever path answers them (the fast path, or Express for another spelling)', async () => {
    const fast = await get(server, page, { 'accept-encoding': 'br' });
    const express = await get(server, page.replace('release?', 'release/?'), { 'accept-encoding': 'br' });
    expect(express.headers['content-encoding']).toBe('br');
    expect(withoutTime(express.text)).toBe(withoutTime(fast.text));
    const document = await get(server, '/api/v1/openapi.json', { 'accept-encoding': 'gzip' });
    expect(document.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(document.text)).toHaveProperty('openapi');
  });
});

describe('small answers', () => {
  it('go out as they are (a release, a problem), still saying they vary', async () => {
    const release = await get(server, '/api/v1/release/rel_lcupwdzrpff2jlr4', { 'accept-encoding': 'br, gzip' });
    expect(release.status).toBe(200);
    expect(release.bytes.length).toBeLessThan(1_024);
    expect(release.headers['content-encoding']).toBeUndefined();
    expect(release.headers.vary).toMatch(/Accept-Encoding/);
    const problem = await get(server, '/api/v1/release?limit=0', { 'accept-encoding': 'br, gzip' });
    expect(problem.status).toBe(400);
    expect(problem.headers['content-encoding']).toBeUndefined();
  });
});

describe('static files', () => {
  it('are sent as the build compressed them, with the type and caching of the file itself', async () => {
    const plain = await get(server, '/assets/app-abc123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const [accept, coding] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
    ] as const) {
      const compressed = await get(server, '/assets/app-abc123.js', { 'accept-encoding': accept });
      expect(compressed.headers['content-encoding']).toBe(coding);
      expect(compressed.headers['content-type']).toBe(plain.headers['content-type']);
      expect(compressed.headers['cache-control']).toBe(plain.headers['cache-control']);
      expect(compressed.headers.vary).toMatch(/Accept-Encoding/);
      expect(compressed.text).toBe(plain.text);
    }
  });

  it("include the reference page's Swagger UI bundle, compressed once in the background", async () => {
    const plain = await get(server, '/docs/assets/swagger-ui-bundle.js');
    await expect
      .poll(
        async () =>
          (await get(server, '/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'br' })).headers[
            'content-encoding'
          ],
        {
          timeout: 20_000,
        },
      )
      .toBe('br');
    const compressed = await get(server, '/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'br' });
    expect(compressed.bytes.length).toBeLessThan(plain.bytes.length / 3);
    expect(compressed.text).toBe(plain.text);
    expect(compressed.headers['content-type']).toBe(plain.headers['content-type']);
  });
});
