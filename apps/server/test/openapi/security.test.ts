import { securitySchemes, sessionCookieNames } from '@releases/contract';
import { describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/http/route-table.js';

const contractRoutes = () => new RouteTable().entries.map((entry) => entry.route);
import { startTestServer } from '../support/harness.js';
import { metadataOf, operationOf, servedDocument } from '../support/openapi-document.js';

const anonymous = (requirement: Record<string, string[]>) => Object.keys(requirement).length === 0;

describe('the security the document offers is the security the server applies', () => {
  for (const authMode of ['optional', 'required'] as const) {
    it(`offers anonymous access to the catalogue ${authMode === 'optional' ? 'under' : 'never under'} RELEASES_AUTH=${authMode}`, async () => {
      const server = await startTestServer({ releases: 'none', config: { authMode } });
      try {
        const document = await servedDocument(server);
        const optional = contractRoutes().filter((route) => metadataOf(route).auth === 'optional');
        expect(optional.length).toBeGreaterThan(0);
        for (const route of optional) {
          const security = operationOf(document, route).security ?? [];
          expect(security.some(anonymous), `${route.method} ${route.path}`).toBe(authMode === 'optional');
          expect(security).toContainEqual({ [securitySchemes.apiKey]: [] });
          // What the document promises, the server does: an anonymous call is answered, or refused with 401.
          const answer = await server.get(route.path.replace(':id', 'rel_missing'));
          expect(answer.status === 401, `${route.method} ${route.path}`).toBe(authMode === 'required');
        }
      } finally {
        await server.close();
      }
    });
  }

  it('describes the session cookie as the carrier of the same session as the Bearer scheme', async () => {
    const plain = await startTestServer({ releases: 'none' });
    const secure = await startTestServer({ releases: 'none', config: { publicUrl: 'https://releases.test' } });
    try {
      for (const [server, cookieName] of [
        [plain, sessionCookieNames.plain],
        [secure, sessionCookieNames.secure],
      ] as const) {
        const document = await servedDocument(server);
        const schemes = document.components?.securitySchemes ?? {};
        expect(Object.keys(schemes)).toEqual(
          expect.arrayContaining([securitySchemes.apiKey, securitySchemes.bearer, securitySchemes.sessionCookie]),
        );
        // The cookie's name depends on PUBLIC_URL (`__Host-` under https), so the document names the one in use.
        expect(schemes[securitySchemes.sessionCookie]).toMatchObject({
          type: 'apiKey',
          in: 'cookie',
          name: cookieName,
        });
        expect(JSON.stringify(schemes[securitySchemes.bearer])).toContain(cookieName);
        for (const route of contractRoutes()) {
          const security = operationOf(document, route).security ?? [];
          const takesSession = ['optional', 'session'].includes(metadataOf(route).auth);
          expect(
            security.some((r) => securitySchemes.bearer in r),
            `${route.path}`,
          ).toBe(takesSession);
          expect(
            security.some((r) => securitySchemes.sessionCookie in r),
            `${route.path}`,
          ).toBe(takesSession);
        }
      }
    } finally {
      await plain.close();
      await secure.close();
    }
  });
});
