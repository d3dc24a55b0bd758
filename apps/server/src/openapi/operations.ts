import {
  contract,
  corsExposedHeaders,
  headerNames,
  limits,
  problemContentType,
  problemKinds,
  ProblemSchema,
  requestIdPattern,
  securitySchemes,
  sessionCookieNames,
  type ProblemKind,
  type RouteAuth,
  type RouteMetadata,
} from '@releases/contract';
import { isAppRouteNoBody, isAppRouteOtherResponse, isZodType, type AppRoute } from '@ts-rest/core';
import type {
  ContentObject,
  HeaderObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SecurityRequirementObject,
} from 'openapi3-ts/oas30';
import type { Config } from '../config.js';
import { apiKeyChallenge, bearerChallenge } from '../auth/verify-credential.js';
import { isReference, responsesOf, schemaOf } from './schemas.js';

/** What an operation's description depends on besides its route. */
export interface OperationContext {
  authMode: Config['authMode'];
}

const sessionSecurity: SecurityRequirementObject[] = [
  { [securitySchemes.bearer]: [] },
  { [securitySchemes.sessionCookie]: [] },
];

/** The credentials a route takes (`metadata.auth`), as the server applies them under the configured mode. */
function securityFor(auth: RouteAuth, authMode: Config['authMode']): SecurityRequirementObject[] {
  switch (auth) {
    case 'none':
      return [];
    case 'optional':
      // `{}` is "no credential": offered only while anonymous calls are (RELEASES_AUTH=optional).
      return [...(authMode === 'optional' ? [{}] : []), { [securitySchemes.apiKey]: [] }, ...sessionSecurity];
    case 'api-key':
      return [{ [securitySchemes.apiKey]: [] }];
    case 'session':
      return sessionSecurity;
  }
}

const int32Max = 2 ** 31 - 1;

/**
 * The response headers of this API, bounded like everything else in the document. They go in
 * `components/headers` under their own names, and responses refer to them.
 */
export const responseHeaderComponents = {
  [headerNames.requestId]: {
    description:
      "The request's id: the caller's own `x-request-id` when it is 1 to 128 characters of `A-Z a-z 0-9 . _ : -`, else one the server made. A problem's `instance` carries it too.",
    required: true,
    schema: { type: 'string', maxLength: limits.maxRequestIdLength, pattern: requestIdPattern.source },
  },
  RateLimit: {
    description:
      'The quota left in the current window (IETF draft `RateLimit` header, draft-8 form): `"<policy>"; r=<remaining>; t=<seconds to reset>`. Sent by every route that counted the request.',
    schema: { type: 'string', maxLength: 256, pattern: '^"[a-z-]+"; r=\\d+; t=\\d+$' },
    example: '"anonymous"; r=59; t=60',
  },
  'RateLimit-Policy': {
    description:
      'The quota the request was counted against: `"<policy>"; q=<requests>; w=<window seconds>; pk=:<partition key>:`. Policies: `anonymous` (per client address), `api-key` (per key), `session` (per user), `auth` (signing up and in, per address).',
    schema: { type: 'string', maxLength: 256, pattern: '^"[a-z-]+"; q=\\d+; w=\\d+(; pk=:[A-Za-z0-9+/=]*:)?$' },
    example: '"anonymous"; q=60; w=60; pk=:NTA4Y2MwZmUyNjE4:',
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    required: true,
    schema: { type: 'integer', minimum: 1, maximum: int32Max },
  },
  'WWW-Authenticate': {
    description: 'The schemes this operation accepts.',
    required: true,
    schema: {
      type: 'string',
      enum: [apiKeyChallenge, bearerChallenge, `${apiKeyChallenge}, ${bearerChallenge}`],
    },
  },
  Link: {
    description:
      'RFC 8288 link to the next page, `<{absolute URL}>; rel="next"`, when there is one. The URL repeats the filters and carries the cursor.',
    schema: { type: 'string', maxLength: 16 * 1024, pattern: '^<[^<>]+>; rel="next"$' },
  },
  'Access-Control-Allow-Origin': {
    description:
      "CORS: the origins allowed to read this response (`*` by default, else the caller's origin when `CORS_ORIGINS` lists it). Only the public read operations are open to other origins; the rest send no CORS headers.",
    schema: { type: 'string', maxLength: 2_048 },
  },
  'Access-Control-Expose-Headers': {
    description: 'CORS: the response headers scripts on other origins may read.',
    schema: { type: 'string', enum: [corsExposedHeaders.join(',')] },
  },
  'Set-Cookie': {
    description:
      'The session cookie (see the `SessionCookie` scheme): set when signing in, renewed while a cookie session is used, cleared (`Max-Age=0`) when signing out (also by ending the current session or deleting the account) or when the cookie no longer works.',
    schema: { type: 'string', maxLength: 512, pattern: `^(${sessionCookieNames.secure}|${sessionCookieNames.plain})=` },
  },
} satisfies Record<string, HeaderObject>;

/** Routes whose handler sets or clears the session cookie, beyond the renewal every session route may do. */
const cookieWriters = new Set<AppRoute>([
  contract.auth.signup,
  contract.auth.login,
  contract.auth.logout,
  // Ending the current session signs out; a deleted account's session is over.
  contract.auth.revokeSession,
  contract.auth.deleteAccount,
]);

function setsCookie(route: AppRoute, metadata: RouteMetadata, status: number): boolean {
  if (cookieWriters.has(route)) return status < 300;
  // A cookie session is renewed when it slides, and a cookie that failed is cleared with the 401.
  return (metadata.auth === 'optional' || metadata.auth === 'session') && (status < 300 || status === 401);
}

type ResponseHeader = keyof typeof responseHeaderComponents;

/** The headers a route's response with this status carries: which ones, not what they are (see above). */
function responseHeaders(
  route: AppRoute,
  metadata: RouteMetadata,
  status: number | 'default',
): Record<string, ReferenceObject> {
  const code = status === 'default' ? 0 : status;
  const names: ResponseHeader[] = [
    headerNames.requestId,
    // Routes counted against no quota (the probes, an owner's sign-out...) never carry the quota headers.
    ...(status === 'default' || metadata.quota === 'none' ? [] : (['RateLimit', 'RateLimit-Policy'] as const)),
    ...(code === 401 ? (['WWW-Authenticate'] as const) : []),
    ...(code === 429 || code === 503 ? (['Retry-After'] as const) : []),
    ...(route === contract.release.list && code === 200 ? (['Link'] as const) : []),
    ...(metadata.publicRead ? (['Access-Control-Allow-Origin', 'Access-Control-Expose-Headers'] as const) : []),
    ...(code > 0 && setsCookie(route, metadata, code) ? (['Set-Cookie'] as const) : []),
  ];
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

const successDescriptions: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

function kindsWithStatus(status: number): ProblemKind[] {
  return (Object.keys(problemKinds) as ProblemKind[]).filter((kind) => problemKinds[kind].status === status);
}

function problemDescription(kinds: ProblemKind[]): string {
  return kinds
    .map((kind) => `${problemKinds[kind].title} (\`${kind}\`): ${problemKinds[kind].description}`)
    .join('\n\n');
}

/** Errors no operation declares on its own: they come from the HTTP layer, before any route runs. */
const transportKinds: ProblemKind[] = ['request-timeout', 'headers-too-large'];

const problemContent = (): ContentObject => ({ [problemContentType]: { schema: schemaOf(ProblemSchema, true) } });

/** One response, from what the contract declares for the status and the schema the generator wrote for it. */
function describeResponse(
  route: AppRoute,
  metadata: RouteMetadata,
  status: number,
  generated: ResponseObject | ReferenceObject | undefined,
): ResponseObject {
  const declared = route.responses[status];
  const headersOf = responseHeaders(route, metadata, status);
  if (status >= 400) {
    return { description: problemDescription(kindsWithStatus(status)), headers: headersOf, content: problemContent() };
  }
  const description =
    isZodType(declared) && declared.description ? declared.description : (successDescriptions[status] ?? 'Success');
  if (declared === undefined || isAppRouteNoBody(declared)) return { description, headers: headersOf };
  if (isAppRouteOtherResponse(declared)) {
    // ts-rest 3.52's generator drops these bodies; written here from the same zod schema.
    const body = isZodType(declared.body) ? schemaOf(declared.body, true) : { type: 'string' as const };
    return { description, headers: headersOf, content: { [declared.contentType]: { schema: body } } };
  }
  const content = generated && !isReference(generated) ? generated.content : undefined;
  return { description, headers: headersOf, ...(content ? { content } : {}) };
}

/**
 * Completes one operation the generator wrote: its security under the configured auth mode, its parameters as
 * they travel, every response the route can give with the headers that come with it, and the problem every
 * other error is.
 */
export function describeOperation(
  operation: OperationObject,
  route: AppRoute,
  context: OperationContext,
): OperationObject {
  const metadata = route.metadata as RouteMetadata;
  const docs = metadata.parameters ?? {};
  const parameters = (operation.parameters ?? []).map((parameter): ParameterObject | ReferenceObject => {
    if (isReference(parameter)) return parameter;
    const doc = docs[parameter.name];
    if (doc === undefined) return parameter;
    return {
      ...parameter,
      schema: schemaOf(doc.schema, false),
      ...(doc.example === undefined ? {} : { example: doc.example }),
    };
  });

  const generated = responsesOf(operation);
  const responses: Record<string, ResponseObject> = {};
  for (const status of Object.keys(route.responses).map(Number)) {
    responses[String(status)] = describeResponse(route, metadata, status, generated[String(status)]);
  }
  responses.default = {
    description: `Any other error is a problem document too, for example: ${problemDescription(transportKinds)}`,
    headers: responseHeaders(route, metadata, 'default'),
    content: problemContent(),
  };

  const body = operation.requestBody;
  return {
    ...operation,
    parameters,
    // A route with a body schema needs its body (the generator leaves `required` out).
    ...(body && !isReference(body) ? { requestBody: { ...body, description: 'JSON body', required: true } } : {}),
    responses,
    security: securityFor(metadata.auth, context.authMode),
  };
}
