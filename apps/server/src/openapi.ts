import {
  contract,
  headerNames,
  problemContentType,
  problemKinds,
  releaseListParameterDocs,
  securitySchemes,
  type ProblemKind,
  type RouteMetadata,
} from '@releases/contract';
import { isAppRouteOtherResponse } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import type { OpenAPIObject, OperationObject, PathItemObject, SchemaObject } from 'openapi3-ts';
import { contractRoutes } from './http/guards.js';

type OpenApiDocument = OpenAPIObject;
type Operation = OperationObject;
interface ResponseObject {
  description: string;
  content?: Record<string, unknown>;
  headers?: Record<string, unknown>;
}

const securityByRoute: Record<RouteMetadata['auth'], Array<Record<string, string[]>>> = {
  none: [],
  // `{}` first: anonymous calls are allowed (RELEASES_AUTH=optional), a credential is checked when sent.
  optional: [{}, { [securitySchemes.apiKey]: [] }, { [securitySchemes.bearer]: [] }],
  'api-key': [{ [securitySchemes.apiKey]: [] }],
  session: [{ [securitySchemes.bearer]: [] }],
};

function problemKindsFor(status: number): ProblemKind[] {
  return (Object.keys(problemKinds) as ProblemKind[]).filter((kind) => problemKinds[kind].status === status);
}

const rateLimitHeaders = {
  RateLimit: { description: 'Remaining quota (IETF draft-8).', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'The quota policy (IETF draft-8).', schema: { type: 'string' } },
};

/** Builds the OpenAPI 3 document from the contract once, at start-up. */
export function buildOpenApiDocument(publicUrl: string, version: string): OpenApiDocument {
  const document = generateOpenApi(
    contract,
    {
      openapi: '3.0.3',
      info: {
        title: 'Releases API',
        version,
        description:
          'Lists music releases (Vocaloid and other synthesized-voice music) with filtering and keyset pagination, and checks API keys. Errors are RFC 9457 problem details; each `type` URI resolves to a page that explains it.',
      },
      servers: [{ url: publicUrl }],
    },
    {
      setOperationId: 'concatenated-path',
      operationMapper: (operation, appRoute) => {
        const metadata = appRoute.metadata as RouteMetadata | undefined;
        const mapped: Operation = { ...operation };
        mapped.security = securityByRoute[metadata?.auth ?? 'none'];
        return mapped;
      },
    },
  );

  document.components = {
    ...document.components,
    securitySchemes: {
      [securitySchemes.apiKey]: {
        type: 'apiKey',
        in: 'header',
        name: headerNames.apiKey,
        description: 'An API key (`rls_...`), issued from the settings screen or `pnpm cli keys create`.',
      },
      [securitySchemes.bearer]: {
        type: 'http',
        scheme: 'bearer',
        description: 'A session token, as `Authorization: Bearer <token>` (the web app uses the session cookie).',
      },
    },
  };

  const routesByOperation = new Map(
    contractRoutes().map((route) => [`${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`, route]),
  );
  const paths = document.paths as Record<string, PathItemObject>;
  for (const [path, pathItem] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(pathItem) as Array<[string, Operation]>) {
      const route = routesByOperation.get(`${method} ${path}`);
      for (const parameter of operation.parameters ?? []) {
        if ('name' in parameter && parameter.in === 'query' && parameter.name in releaseListParameterDocs) {
          parameter.schema = {
            ...releaseListParameterDocs[parameter.name as keyof typeof releaseListParameterDocs],
          } as SchemaObject;
        }
      }
      // openapi3-ts types responses as `any`; these are the objects the generator wrote.
      const responses = operation.responses as unknown as Record<string, ResponseObject>;
      for (const [status, response] of Object.entries(responses)) {
        const code = Number(status);
        const declared = route?.responses[code];
        if (declared !== undefined && isAppRouteOtherResponse(declared)) {
          // ts-rest 3.52's generator drops these bodies; describe them by their media type.
          response.content = { [declared.contentType]: { schema: { type: 'string' } } };
        }
        if (!response.content) continue;
        if (code >= 400 && response.content['application/json']) {
          response.content = { [problemContentType]: response.content['application/json'] };
        }
        if (response.content[problemContentType]) {
          const kinds = problemKindsFor(code);
          response.description = kinds
            .map((kind) => `${problemKinds[kind].title} (\`${kind}\`): ${problemKinds[kind].description}`)
            .join('\n\n');
        } else if (code === 200) {
          response.description = 'Success.';
        }
        if (operation.security && operation.security.length > 0) {
          response.headers = {
            [headerNames.requestId]: {
              description: "The request id, also in a problem's `instance`.",
              schema: { type: 'string' },
            },
            ...rateLimitHeaders,
            ...(code === 200 && operation.operationId === 'releaseList'
              ? {
                  Link: {
                    description: 'RFC 8288 link to the next page (`rel="next"`), when there is one.',
                    schema: { type: 'string' },
                  },
                }
              : {}),
            ...(code === 401
              ? { 'WWW-Authenticate': { description: 'The accepted schemes.', schema: { type: 'string' } } }
              : {}),
            ...(code === 429 || code === 503
              ? { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } }
              : {}),
          };
        }
      }
    }
  }
  return document;
}
