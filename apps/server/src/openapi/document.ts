import { contract, headerNames, namedSchemas, securitySchemes } from '@releases/contract';
import { generateOpenApi } from '@ts-rest/open-api';
import type { OpenAPIObject, SecuritySchemeObject, ServerObject } from 'openapi3-ts/oas30';
import { SessionCookie } from '../auth/session-cookie.js';
import type { Config } from '../config.js';
import { describeOperation, responseHeaderComponents } from './operations.js';
import { hoistNamedSchemas, rewriteSchemas, withIntegerFormat } from './schemas.js';

export type OpenApiDocument = OpenAPIObject;

/** The operation type of ts-rest's generator (openapi3-ts 2, whose index signatures are `any`). */
type GeneratorOperation = ReturnType<
  NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>['operationMapper']>
>;

const environments: Record<Config['env'], string> = {
  production: 'Production',
  test: 'Test',
  development: 'Local development',
};

function securitySchemesFor(publicUrl: string): Record<string, SecuritySchemeObject> {
  // The cookie's name depends on PUBLIC_URL (`__Host-` under https): the document names the one this server sets.
  const cookie = new SessionCookie(publicUrl).name;
  return {
    [securitySchemes.apiKey]: {
      type: 'apiKey',
      in: 'header',
      name: headerNames.apiKey,
      description: 'An API key (`rls_...`), issued from the settings screen or `pnpm cli keys create`.',
    },
    [securitySchemes.bearer]: {
      type: 'http',
      scheme: 'bearer',
      description: `A session token as \`Authorization: Bearer <token>\`: the \`data.session.token\` that signing up or in returns, which is also the value of the \`${cookie}\` cookie (\`${securitySchemes.sessionCookie}\`). The same session either way; clients outside a browser send it this way, and header credentials need no same-origin check.`,
    },
    [securitySchemes.sessionCookie]: {
      type: 'apiKey',
      in: 'cookie',
      name: cookie,
      description: `The session cookie that signing up or in sets (\`HttpOnly; SameSite=Lax; Path=/\`, and \`Secure\` under https), carrying the same token as \`${securitySchemes.bearer}\`. Browsers send it by themselves; a request that changes something with it must come from this service's own origin (\`Sec-Fetch-Site: same-origin\` or a matching \`Origin\`), else it is a 403.`,
    },
  };
}

/**
 * Builds the OpenAPI 3 document from the contract once, at start-up: ts-rest generates the operations, each is
 * completed from the route's metadata (security under `RELEASES_AUTH`, parameters, every response and header),
 * the contract's named schemas are moved into `components`, and integers get their formats.
 */
export function buildOpenApiDocument(
  config: Pick<Config, 'publicUrl' | 'authMode' | 'env'>,
  version: string,
): OpenApiDocument {
  const server: ServerObject = {
    url: config.publicUrl,
    description: environments[config.env],
    // A public API: the OWASP inventory rule asks every server to say so.
    'x-internal': false,
  };
  const generated = generateOpenApi(
    contract,
    {
      openapi: '3.0.3',
      info: {
        title: 'Releases API',
        version,
        // The document is the contract package's, in another form, under its licence.
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
        description:
          'Lists music releases (Vocaloid and other synthesized-voice music) with filtering and keyset pagination, and manages the API keys that call it. Every error is an RFC 9457 problem document (`application/problem+json`); each `type` URI resolves to a page that explains it. Every request is counted against a rate limit (`RateLimit`, `RateLimit-Policy`; 429 with `Retry-After` when spent) and every response carries `x-request-id`.',
      },
      servers: [server],
    },
    {
      setOperationId: 'concatenated-path',
      // The generator's operation types are loose (openapi3-ts 2); what it writes are OpenAPI 3.0 operations.
      operationMapper: (operation, route) =>
        describeOperation(operation, route, {
          authMode: config.authMode,
        }) as unknown as GeneratorOperation,
    },
  );
  const document = generated as unknown as OpenAPIObject;
  document.components = {
    ...document.components,
    headers: responseHeaderComponents,
    securitySchemes: securitySchemesFor(config.publicUrl),
  };
  hoistNamedSchemas(document, namedSchemas);
  rewriteSchemas(document, withIntegerFormat);
  return document;
}
