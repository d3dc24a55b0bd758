import {
  apiPaths,
  limits,
  namedSchemas,
  problemContentType,
  problemKindNames,
  releaseFilterParameters,
  sortOrders,
} from '@releases/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/http/route-table.js';

const contractRoutes = () => new RouteTable().entries.map((entry) => entry.route);
import { startTestServer, type TestServer } from '../support/harness.js';
import {
  allSchemas,
  isReference,
  operationOf,
  operations,
  operationSchemas,
  responseOf,
  responsesOf,
  servedDocument,
  type OpenAPIObject,
  type ParameterObject,
  type SchemaObject,
} from '../support/openapi-document.js';

let server: TestServer;
let document: OpenAPIObject;

beforeAll(async () => {
  server = await startTestServer({ releases: 'none' });
  document = await servedDocument(server);
});
afterAll(() => server.close());

const route = (method: string, path: string) => contractRoutes().find((r) => r.method === method && r.path === path)!;
const component = (name: string) => document.components?.schemas?.[name] as SchemaObject | undefined;
const refTo = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('schemas are valid OpenAPI 3.0', () => {
  it('gives every nullable schema a type (OpenAPI 3.0 ignores `nullable` without one)', () => {
    const untyped = allSchemas(document)
      .filter(({ schema }) => !isReference(schema) && schema.nullable !== undefined && schema.type === undefined)
      .filter(({ schema }) => !isReference(schema) && !schema.allOf && !schema.oneOf && !schema.anyOf)
      .map(({ at }) => at);
    expect(untyped).toEqual([]);
  });

  it('describes this document by a real schema, not an untyped record', () => {
    const ok = responseOf(operationOf(document, route('GET', apiPaths.openapi)), 200)!;
    expect(ok.content?.['application/json']?.schema).toEqual(refTo('OpenApiDocument'));
    expect(component('OpenApiDocument')).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['openapi', 'info', 'paths']) as unknown,
    });
  });
});

describe('the release list parameters', () => {
  const parameter = (name: string) =>
    (operationOf(document, route('GET', apiPaths.releaseList)).parameters as ParameterObject[]).find(
      (p) => p.name === name,
    )!;

  it('are comma-separated strings, as the interface types them, with their limits in the description', () => {
    for (const name of releaseFilterParameters) {
      const p = parameter(name);
      // SPEC §3.2: `type: string`, so generated clients take `genres: 'rock,electropop'` (issue 19).
      expect(p, name).toMatchObject({
        in: 'query',
        schema: { type: 'string', maxLength: limits.maxFilterParameterLength },
        example: expect.stringMatching(/^[^,]+,[^,]+$/) as unknown,
      });
      expect(p.style ?? 'form', name).toBe('form');
      expect(p.schema, name).not.toHaveProperty('items');
      // Room for every value at its longest with its separator.
      expect(limits.maxFilterParameterLength).toBeGreaterThanOrEqual(
        limits.maxFilterValues * limits.maxFilterValueLength + limits.maxFilterValues - 1,
      );
      // The union of repeated parameters cannot be said by a string's schema: the description says it.
      expect(p.description, name).toContain(`${name}=a&${name}=b`);
      expect(p.description, name).toContain(`at most ${limits.maxFilterValues} values`);
      expect(p.description, name).toContain(`1 to ${limits.maxFilterValueLength} characters`);
      expect(p.description, name).toContain(`at most ${limits.maxFilterParameterLength} characters in one parameter`);
      expect(p.description, name).toMatch(/control characters, lone surrogates and bidirectional overrides/i);
    }
  });

  it('bound the page size, the cursor and the sort order', () => {
    expect(parameter('limit').schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: limits.maxPageSize,
      default: limits.defaultPageSize,
    });
    expect(parameter('cursor').schema).toMatchObject({ type: 'string', maxLength: limits.maxCursorLength });
    expect(parameter('sort').schema).toMatchObject({ type: 'string', enum: [...sortOrders] });
  });

  it('say that any other parameter is a 400', () => {
    const list = operationOf(document, route('GET', apiPaths.releaseList));
    expect(list.description).toMatch(/any other query parameter is a 400/i);
    expect(responseOf(list, 400)?.description).toMatch(/unknown parameter/i);
  });
});

describe('named schemas', () => {
  it('puts the contract’s named schemas in components, problem kinds as an enum', () => {
    for (const name of [
      'Release',
      'ReleaseLink',
      'Problem',
      'ProblemError',
      'ProblemKind',
      'ApiKey',
      'CreatedApiKey',
      'User',
      'Session',
      'Facets',
      'FacetValue',
      'ReleaseListResponse',
      'ReleaseResponse',
      'FacetsResponse',
      'AuthResponse',
      'SessionInfoResponse',
      'ApiKeyListResponse',
      'CreatedApiKeyResponse',
      'ApiKeyResponse',
    ]) {
      expect(component(name), name).toBeDefined();
    }
    expect(Object.keys(document.components?.schemas ?? {}).sort()).toEqual(Object.keys(namedSchemas).sort());
    expect(component('ProblemKind')).toEqual(expect.objectContaining({ type: 'string', enum: problemKindNames }));
  });

  it('refers to them from every operation instead of repeating them', () => {
    const list = operationOf(document, route('GET', apiPaths.releaseList));
    expect(responseOf(list, 200)?.content?.['application/json']?.schema).toEqual(refTo('ReleaseListResponse'));
    expect(component('ReleaseList')?.properties?.releases).toMatchObject({ type: 'array', items: refTo('Release') });
    for (const { path, method, operation } of operations(document)) {
      for (const [status, response] of Object.entries(responsesOf(operation))) {
        const problem = response.content?.[problemContentType];
        if (problem) expect(problem.schema, `${method} ${path} ${status}`).toEqual(refTo('Problem'));
      }
      // No object is spelled out inside an operation: each is a named component.
      for (const { schema, at } of operationSchemas(operation, `${method} ${path}`)) {
        if (!isReference(schema)) expect(schema.type, at).not.toBe('object');
      }
    }
  });

  it('hoists nested schemas too, so each is written once', () => {
    const text = JSON.stringify(document);
    // Release's own description of `artist` appears in its component and nowhere else.
    expect(text.split('Producer or circle credited.').length - 1).toBe(1);
    expect(component('ReleaseResponse')?.properties?.data).toEqual(refTo('Release'));
    expect(component('Problem')?.properties?.errors).toMatchObject({ items: refTo('ProblemError') });
  });
});
