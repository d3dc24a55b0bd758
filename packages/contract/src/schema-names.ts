import type { z } from 'zod';
import {
  ApiKeyListResponseSchema,
  ApiKeyListSchema,
  ApiKeyResponseSchema,
  ApiKeySchema,
  AuthResponseSchema,
  CreateApiKeySchema,
  CreatedApiKeyResponseSchema,
  CreatedApiKeySchema,
  CredentialsSchema,
  LoginSchema,
  SessionExpirySchema,
  SessionInfoResponseSchema,
  SessionInfoSchema,
  SessionSchema,
  SignedInSchema,
  UserSchema,
} from './accounts.js';
import { OpenApiDocumentSchema } from './contract.js';
import { ProblemErrorSchema, ProblemKindSchema, ProblemSchema } from './problem.js';
import {
  FacetsResponseSchema,
  FacetsSchema,
  FacetValueSchema,
  ReleaseLinkSchema,
  ReleaseListResponseSchema,
  ReleaseListSchema,
  ReleaseResponseSchema,
  ReleaseSchema,
} from './release.js';

/**
 * The name of each schema in the OpenAPI document (`components/schemas`), so generated clients get named types
 * (`components['schemas']['Release']`). ts-rest's generator writes every schema inline where it is used; the
 * server's document builder puts each of these in `components` once and refers to it everywhere else. A schema
 * is named here, and only here.
 */
export const namedSchemas = {
  Release: ReleaseSchema,
  ReleaseLink: ReleaseLinkSchema,
  ReleaseList: ReleaseListSchema,
  ReleaseListResponse: ReleaseListResponseSchema,
  ReleaseResponse: ReleaseResponseSchema,
  FacetValue: FacetValueSchema,
  Facets: FacetsSchema,
  FacetsResponse: FacetsResponseSchema,
  Problem: ProblemSchema,
  ProblemError: ProblemErrorSchema,
  ProblemKind: ProblemKindSchema,
  Credentials: CredentialsSchema,
  Login: LoginSchema,
  User: UserSchema,
  Session: SessionSchema,
  SessionExpiry: SessionExpirySchema,
  SignedIn: SignedInSchema,
  AuthResponse: AuthResponseSchema,
  SessionInfo: SessionInfoSchema,
  SessionInfoResponse: SessionInfoResponseSchema,
  ApiKey: ApiKeySchema,
  ApiKeyList: ApiKeyListSchema,
  ApiKeyListResponse: ApiKeyListResponseSchema,
  CreateApiKey: CreateApiKeySchema,
  CreatedApiKey: CreatedApiKeySchema,
  CreatedApiKeyResponse: CreatedApiKeyResponseSchema,
  ApiKeyResponse: ApiKeyResponseSchema,
  OpenApiDocument: OpenApiDocumentSchema,
} satisfies Record<string, z.ZodTypeAny>;
