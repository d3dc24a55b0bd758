import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/harness.js';
import { servedDocument } from '../support/openapi-document.js';

/**
 * Scripts on other origins read a 401's `WWW-Authenticate` (which scheme to use, and why the credential
 * failed) only when the response exposes it: CORS hides every other header.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ releases: 'none', config: { authMode: 'required' } });
});
afterAll(() => server.close());

const fromElsewhere = { headers: { origin: 'https://elsewhere.example' } };
const exposed = (response: Response) =>
  (response.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);

describe('Access-Control-Expose-Headers on the public operations', () => {
  it.each(['/api/v1/health', '/api/v1/release', '/api/v1/facets'])(
    'names WWW-Authenticate on a 401 from %s, every time it is asked',
    async (path) => {
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await server.get(path, fromElsewhere);
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).not.toBeNull();
        expect(response.headers.get('access-control-allow-origin')).toBe('*');
        expect(exposed(response)).toContain('www-authenticate');
      }
    },
  );

  it('is what the document says it is', async () => {
    const document = await servedDocument(server);
    const header = document.components?.headers?.['Access-Control-Expose-Headers'] as
      { schema: { enum: string[] } } | undefined;
    const response = await server.get('/api/v1/health', fromElsewhere);
    expect(header?.schema.enum).toEqual([response.headers.get('access-control-expose-headers')]);
    expect(header?.schema.enum[0]?.split(',')).toContain('www-authenticate');
  });
});
