import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReleasesClient, VERSION, type Logger } from '../src/index.js';
import { identificationHeaders } from '../src/version.js';
import { emptyFacets, scriptedServer, sendJson, type ScriptedServer } from './scripted-server.js';

/** What the SDK reads from where it runs: environment variables and the runtime's name (issue 19 #1). */
let api: ScriptedServer | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await api?.close();
  api = undefined;
});

async function facetsServer(): Promise<ScriptedServer> {
  api = await scriptedServer((_request, res) => sendJson(res, 200, emptyFacets));
  return api;
}

function capture(): { logger: Logger; lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at =
    (level: string) =>
    (message: string): void => {
      lines.push({ level, message });
    };
  return { logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') }, lines };
}

describe('environment variables', () => {
  it('are trimmed: a key or URL pasted with spaces or read from a file with its newline works', async () => {
    const server = await facetsServer();
    vi.stubEnv('RELEASES_API_KEY', '  rls_from_a_file\n');
    vi.stubEnv('RELEASES_BASE_URL', ` ${server.baseUrl}/ \n`);
    const client = new ReleasesClient();
    expect(client.baseUrl).toBe(server.baseUrl);
    await client.facets.list();
    expect(server.requests[0]!.headers['x-api-key']).toBe('rls_from_a_file');
  });

  it('a variable of only whitespace is the same as unset', () => {
    vi.stubEnv('RELEASES_API_KEY', ' \t ');
    vi.stubEnv('RELEASES_BASE_URL', '  ');
    expect(() => new ReleasesClient()).not.toThrow();
    expect(new ReleasesClient().baseUrl).toBe('http://localhost:3000');
  });

  it('a runtime that refuses to read them (Deno without --allow-env) gives the defaults, not a crash', () => {
    const descriptor = Object.getOwnPropertyDescriptor(process, 'env')!;
    const denied = new Proxy(
      {},
      {
        get(_target, name) {
          // What Deno 2 throws for process.env.X without the permission.
          throw Object.assign(new Error(`Requires env access to "${String(name)}", run again with --allow-env`), {
            name: 'NotCapable',
          });
        },
      },
    );
    let client: ReleasesClient | undefined;
    try {
      Object.defineProperty(process, 'env', { value: denied, configurable: true });
      client = new ReleasesClient();
    } finally {
      Object.defineProperty(process, 'env', descriptor);
    }
    expect(client.baseUrl).toBe('http://localhost:3000');
  });
});

describe('RELEASES_LOG', () => {
  it('sets the log level when the logLevel option does not: debug shows every response', async () => {
    const server = await facetsServer();
    vi.stubEnv('RELEASES_LOG', ' debug ');
    const { logger, lines } = capture();
    await new ReleasesClient({ baseUrl: server.baseUrl, logger }).facets.list();
    expect(lines.filter((line) => line.level === 'debug').length).toBeGreaterThan(0);
  });

  it('is read case-insensitively; the logLevel option wins over it', async () => {
    const server = await facetsServer();
    vi.stubEnv('RELEASES_LOG', 'DEBUG');
    const quiet = capture();
    await new ReleasesClient({ baseUrl: server.baseUrl, logger: quiet.logger, logLevel: 'warn' }).facets.list();
    expect(quiet.lines).toEqual([]);
    const loud = capture();
    await new ReleasesClient({ baseUrl: server.baseUrl, logger: loud.logger }).facets.list();
    expect(loud.lines.some((line) => line.level === 'debug')).toBe(true);
  });

  it('an unknown value is a warning naming the variable, and the default applies', () => {
    vi.stubEnv('RELEASES_LOG', 'verbose');
    const { logger, lines } = capture();
    expect(() => new ReleasesClient({ baseUrl: 'http://127.0.0.1:9', logger })).not.toThrow();
    expect(lines.map((line) => line.level)).toEqual(['warn']);
    expect(lines[0]!.message).toMatch(/RELEASES_LOG is "verbose", not one of .*debug/);
  });
});

describe('the user agent names the runtime', () => {
  it.each([
    ['Node', { process: { versions: { node: '24.1.0' } } }, `node/24.1.0`],
    // Bun and Deno also expose process.versions.node: their own name comes first.
    ['Bun', { process: { versions: { node: '24.3.0', bun: '1.4.5' } } }, 'bun/1.4.5'],
    ['Deno', { Deno: { version: { deno: '2.9.6' } }, process: { versions: { node: '24.2.0' } } }, 'deno/2.9.6'],
    ['workerd', { navigator: { userAgent: 'Cloudflare-Workers' } }, 'workerd'],
    [
      'workerd with nodejs_compat',
      { navigator: { userAgent: 'Cloudflare-Workers' }, process: { versions: { node: '22.14.0' } } },
      'workerd',
    ],
  ])('%s', (_runtime, globals, runtime) => {
    expect(identificationHeaders(globals)).toEqual({
      'user-agent': `releases-client/${VERSION} ${runtime}`,
      'x-releases-client': VERSION,
    });
  });

  it('sends none from a browser page (a custom header would need a CORS preflight)', () => {
    expect(identificationHeaders({ document: {}, navigator: { userAgent: 'Mozilla/5.0' } })).toEqual({});
  });
});
