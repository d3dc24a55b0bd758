import type { RouteMetadata } from '@releases/contract';
import type { AppRoute } from '@ts-rest/core';
import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts/oas30';
import { expect } from 'vitest';
import type { TestServer } from './harness.js';

/** Helpers shared by the OpenAPI tests: the document as a server serves it, and ways to walk it. */

export type { OpenAPIObject, OperationObject, ParameterObject, ResponseObject, SchemaObject };
export type Schema = SchemaObject | ReferenceObject;

export async function servedDocument(server: TestServer): Promise<OpenAPIObject> {
  const response = await server.get('/api/v1/openapi.json');
  expect(response.status).toBe(200);
  return (await response.json()) as OpenAPIObject;
}

export function isReference(value: unknown): value is ReferenceObject {
  return typeof value === 'object' && value !== null && '$ref' in value;
}

export const toOpenApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

export function metadataOf(route: AppRoute): RouteMetadata {
  return route.metadata as RouteMetadata;
}

/** The operation documenting a contract route; fails the test when there is none. */
export function operationOf(document: OpenAPIObject, route: AppRoute): OperationObject {
  const operation = document.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase() as 'get'];
  expect(operation, `${route.method} ${route.path}`).toBeDefined();
  return operation!;
}

/** An operation's responses (never `$ref`s in this document); openapi3-ts types them as `any`. */
export function responsesOf(operation: OperationObject): Record<string, ResponseObject> {
  return operation.responses;
}

/** A declared response, or undefined. */
export function responseOf(operation: OperationObject, status: number | 'default'): ResponseObject | undefined {
  const response = responsesOf(operation)[String(status)];
  if (response !== undefined) expect(isReference(response), `response ${status} is inline`).toBe(false);
  return response;
}

/** A header, following a `$ref` into `components/headers`. */
export function resolveHeader(document: OpenAPIObject, header: HeaderObject | ReferenceObject): HeaderObject {
  if (!isReference(header)) return header;
  const name = header.$ref.replace('#/components/headers/', '');
  const resolved = document.components?.headers?.[name];
  expect(resolved, header.$ref).toBeDefined();
  return resolved as HeaderObject;
}

/** A response's declared headers, by lower-cased name (HTTP header names are case-insensitive). */
export function declaredHeaders(document: OpenAPIObject, response: ResponseObject): Map<string, HeaderObject> {
  return new Map(
    Object.entries(response.headers ?? {}).map(([name, header]) => [
      name.toLowerCase(),
      resolveHeader(document, header),
    ]),
  );
}

export function operations(
  document: OpenAPIObject,
): Array<{ path: string; method: string; operation: OperationObject }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    (['get', 'put', 'post', 'delete', 'patch'] as const).flatMap((method) => {
      const operation = (item as Record<string, OperationObject | undefined>)[method];
      return operation ? [{ path, method, operation }] : [];
    }),
  );
}

/** Where a schema sits, as a JSON-pointer-like trail, for messages. */
export interface SchemaVisit {
  schema: Schema;
  at: string;
}

function childSchemas(schema: SchemaObject, at: string): SchemaVisit[] {
  const children: SchemaVisit[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    children.push({ schema: property, at: `${at}/properties/${name}` });
  }
  if (schema.items) children.push({ schema: schema.items, at: `${at}/items` });
  if (typeof schema.additionalProperties === 'object') {
    children.push({ schema: schema.additionalProperties, at: `${at}/additionalProperties` });
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    (schema[keyword] ?? []).forEach((entry, i) => children.push({ schema: entry, at: `${at}/${keyword}/${i}` }));
  }
  if (schema.not) children.push({ schema: schema.not, at: `${at}/not` });
  return children;
}

/** The schemas an operation uses directly: parameters, request and response bodies, response headers. */
export function operationSchemas(operation: OperationObject, at: string): SchemaVisit[] {
  const roots: SchemaVisit[] = [];
  for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
    if (parameter.schema) roots.push({ schema: parameter.schema, at: `${at}/parameters/${parameter.name}` });
  }
  const body = operation.requestBody;
  if (body && !isReference(body)) {
    for (const [type, media] of Object.entries(body.content)) {
      if (media.schema) roots.push({ schema: media.schema, at: `${at}/requestBody/${type}` });
    }
  }
  for (const [status, response] of Object.entries(responsesOf(operation))) {
    for (const [type, media] of Object.entries(response.content ?? {})) {
      if (media.schema) roots.push({ schema: media.schema, at: `${at}/responses/${status}/${type}` });
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const schema = isReference(header) ? undefined : header.schema;
      if (schema) roots.push({ schema, at: `${at}/responses/${status}/headers/${name}` });
    }
  }
  return roots;
}

/** Every schema in the document (operations and components), depth first. */
export function allSchemas(document: OpenAPIObject): SchemaVisit[] {
  const roots: SchemaVisit[] = operations(document).flatMap(({ path, method, operation }) =>
    operationSchemas(operation, `${method} ${path}`),
  );
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    roots.push({ schema, at: `#/components/schemas/${name}` });
  }
  for (const [name, header] of Object.entries(document.components?.headers ?? {})) {
    if (!isReference(header) && header.schema)
      roots.push({ schema: header.schema, at: `#/components/headers/${name}` });
  }
  const visits: SchemaVisit[] = [];
  const pending = [...roots];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    visits.push(visit);
    if (!isReference(visit.schema)) pending.push(...childSchemas(visit.schema, visit.at));
  }
  return visits;
}
