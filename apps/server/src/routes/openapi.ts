import type { contract } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { OpenApiDocument } from '../openapi/document.js';

/** The OpenAPI document, built once from the contract when the server starts (`openapi/document.ts`). */
export function openapiRoutes(document: OpenApiDocument): {
  document: AppRouteImplementation<typeof contract.openapi.document>;
} {
  return { document: async () => ({ status: 200, body: document }) };
}
