import SwaggerParser from '@apidevtools/swagger-parser';
import { problemContentType } from '@releases/contract';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/http/route-table.js';

const contractRoutes = () => new RouteTable().entries.map((entry) => entry.route);
import { startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
let document: Record<string, unknown> & {
  paths: Record<
    string,
    Record<string, { security?: unknown[]; responses: Record<string, { content?: Record<string, unknown> }> }>
  >;
};

beforeAll(async () => {
  server = await startTestServer({ releases: 'none' });
  document = (await (await server.get('/api/v1/openapi.json')).json()) as typeof document;
});
afterAll(() => server.close());

/** Routes Express actually has, read from its router stack (Express 5 keeps them in `app.router.stack`). */
async function expressRoutes(): Promise<string[]> {
  const { createApp } = await import('../../src/app.js');
  const { createLogger } = await import('../../src/kernel/logger.js');
  const app: Express = createApp({ ...server.services, ...server.parts, logger: createLogger('silent') }).express;
  const stack = (
    app as unknown as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }
  ).router.stack;
  return stack
    .filter((layer) => layer.route)
    .flatMap((layer) =>
      Object.keys(layer.route!.methods)
        .filter((m) => m !== '_all')
        .map((m) => `${m.toUpperCase()} ${layer.route!.path}`),
    );
}

const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describe('the contract, Express and the OpenAPI document agree', () => {
  it('every Express route is in the contract and the other way round', async () => {
    // Each route is mounted twice: its pipeline (credential, limits, body) and then its ts-rest handler.
    const fromExpress = [...new Set(await expressRoutes())].sort();
    const fromContract = contractRoutes()
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(fromExpress).toEqual(fromContract);
  });

  it('every contract route is in the OpenAPI document', () => {
    for (const route of contractRoutes()) {
      expect(
        document.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()],
        `${route.method} ${route.path}`,
      ).toBeDefined();
    }
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented).toHaveLength(contractRoutes().length);
  });

  it('is a valid OpenAPI document', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('declares the ApiKeyAuth and bearer schemes and uses them', () => {
    const components = document.components as { securitySchemes: Record<string, Record<string, string>> };
    expect(components.securitySchemes.ApiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(components.securitySchemes.BearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/api/v1/health']!.get!.security).toEqual([{ ApiKeyAuth: [] }]);
    expect(document.paths['/api/v1/release']!.get!.security).toContainEqual({ BearerAuth: [] });
  });

  it('lists the problem responses of each API operation as problem+json', () => {
    const list = document.paths['/api/v1/release']!.get!.responses;
    for (const status of ['400', '401', '429', '500', '503']) {
      expect(list[status]?.content?.[problemContentType], status).toBeDefined();
    }
    expect(document.paths['/api/v1/health']!.get!.responses['401']?.content?.[problemContentType]).toBeDefined();
    expect(document.paths['/api/v1/release/{id}']!.get!.responses['404']?.content?.[problemContentType]).toBeDefined();
  });
});
