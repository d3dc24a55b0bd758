import type {
  ActiveSessionListResponseSchema,
  ActiveSessionSchema,
  ApiKeyListResponseSchema,
  ApiKeySchema,
  AuthResponseSchema,
  CreateApiKeySchema,
  CreatedApiKeyResponseSchema,
  ChangePasswordSchema,
  CredentialsSchema,
  DeleteAccountSchema,
  FacetsResponseSchema,
  LoginSchema,
  PasswordResetConfirmSchema,
  PasswordResetRequestedResponseSchema,
  PasswordResetRequestSchema,
  ProblemSchema,
  FacetsQuery,
  ReleaseListQuery,
  ReleaseSchema,
  SessionInfoResponseSchema,
  SessionSchema,
  UserSchema,
} from '@releases/contract';
import type { ProblemKind as ContractProblemKind } from '@releases/contract/wire';
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  type ActiveSession,
  type ActiveSessionList,
  type APIError,
  type ChangePasswordParams,
  type DeleteAccountParams,
  type PasswordResetConfirmParams,
  type PasswordResetRequested,
  type PasswordResetRequestParams,
  type ApiKey,
  type ApiKeyList,
  type AuthResult,
  type ConflictError,
  type CreateApiKeyParams,
  type CreatedApiKey,
  type Credentials,
  type RateLimitError,
  ReleasesClient,
  type ReleasesError,
  type ResponseValidationError,
  type Session,
  type SessionInfo,
  type User,
  type Facets,
  type Problem,
  type ProblemKind,
  type Release,
  type CatalogueQuery,
  type ReleaseListParams,
  type ReleasePage,
  type WithResponse,
} from '../src/index.js';

describe('public types equal the contract', () => {
  it('Release is the contract release', () => {
    expectTypeOf<Release>().toEqualTypeOf<z.infer<typeof ReleaseSchema>>();
  });

  it('ProblemKind is every kind the contract declares (issue 19)', () => {
    expectTypeOf<ProblemKind>().toEqualTypeOf<ContractProblemKind>();
  });

  it('Facets is the contract facets payload', () => {
    expectTypeOf<Facets>().toEqualTypeOf<z.infer<typeof FacetsResponseSchema>['data']>();
  });

  it('Problem carries the contract problem fields', () => {
    type ContractProblem = z.infer<typeof ProblemSchema>;
    expectTypeOf<Problem['type']>().toEqualTypeOf<ContractProblem['type']>();
    expectTypeOf<Problem['status']>().toEqualTypeOf<ContractProblem['status']>();
    expectTypeOf<Problem['detail']>().toEqualTypeOf<ContractProblem['detail']>();
  });

  it('accounts and keys are the contract shapes (issue 7 #5)', () => {
    expectTypeOf<User>().toEqualTypeOf<z.infer<typeof UserSchema>>();
    expectTypeOf<Session>().toEqualTypeOf<z.infer<typeof SessionSchema>>();
    expectTypeOf<AuthResult>().toEqualTypeOf<z.infer<typeof AuthResponseSchema>['data']>();
    expectTypeOf<SessionInfo>().toEqualTypeOf<z.infer<typeof SessionInfoResponseSchema>['data']>();
    expectTypeOf<ApiKey>().toEqualTypeOf<z.infer<typeof ApiKeySchema>>();
    expectTypeOf<ApiKeyList>().toEqualTypeOf<z.infer<typeof ApiKeyListResponseSchema>['data']>();
    expectTypeOf<CreatedApiKey>().toEqualTypeOf<z.infer<typeof CreatedApiKeyResponseSchema>['data']>();
    // What callers send: the schemas' input side (before the server trims and lower-cases).
    expectTypeOf<Credentials>().toEqualTypeOf<z.input<typeof CredentialsSchema>>();
    expectTypeOf<Credentials>().toEqualTypeOf<z.input<typeof LoginSchema>>();
    expectTypeOf<CreateApiKeyParams>().toEqualTypeOf<z.input<typeof CreateApiKeySchema>>();
  });

  it('the account lifecycle is the contract shapes (issue 18)', () => {
    expectTypeOf<ActiveSession>().toEqualTypeOf<z.infer<typeof ActiveSessionSchema>>();
    expectTypeOf<ActiveSessionList>().toEqualTypeOf<z.infer<typeof ActiveSessionListResponseSchema>['data']>();
    expectTypeOf<PasswordResetRequested>().toEqualTypeOf<
      z.infer<typeof PasswordResetRequestedResponseSchema>['data']
    >();
    expectTypeOf<ChangePasswordParams>().toEqualTypeOf<z.input<typeof ChangePasswordSchema>>();
    expectTypeOf<PasswordResetRequestParams>().toEqualTypeOf<z.input<typeof PasswordResetRequestSchema>>();
    expectTypeOf<PasswordResetConfirmParams>().toEqualTypeOf<z.input<typeof PasswordResetConfirmSchema>>();
    expectTypeOf<DeleteAccountParams>().toEqualTypeOf<z.input<typeof DeleteAccountSchema>>();
  });

  it('list parameters use the wire names of the contract query', () => {
    expectTypeOf<keyof ReleaseListParams>().toEqualTypeOf<keyof ReleaseListQuery>();
    expectTypeOf<NonNullable<ReleaseListParams['sort']>>().toEqualTypeOf<ReleaseListQuery['sort']>();
    expectTypeOf<keyof CatalogueQuery>().toEqualTypeOf<keyof FacetsQuery>();
  });
});

describe('the client surface', () => {
  const client = new ReleasesClient();

  it('resolves resources to their data', () => {
    expectTypeOf(client.health.check()).resolves.toEqualTypeOf<'OK'>();
    expectTypeOf(client.releases.get('rel_x')).resolves.toEqualTypeOf<Release>();
    expectTypeOf(client.facets.list()).resolves.toEqualTypeOf<Facets>();
    expectTypeOf(client.releases.list()).resolves.toEqualTypeOf<ReleasePage>();
    expectTypeOf(client.facets.list().withResponse()).resolves.toEqualTypeOf<WithResponse<Facets>>();
  });

  it('resolves auth and keys to their data', () => {
    const me = client.withSession('token');
    expectTypeOf(me).toEqualTypeOf<ReleasesClient>();
    expectTypeOf(client.auth.signup({ email: 'a@b.c', password: 'x' })).resolves.toEqualTypeOf<AuthResult>();
    expectTypeOf(client.auth.login({ email: 'a@b.c', password: 'x' })).resolves.toEqualTypeOf<AuthResult>();
    expectTypeOf(me.auth.logout()).resolves.toEqualTypeOf<void>();
    expectTypeOf(me.auth.session()).resolves.toEqualTypeOf<SessionInfo>();
    expectTypeOf(me.keys.list()).resolves.toEqualTypeOf<ApiKeyList>();
    expectTypeOf(me.keys.create({ name: 'ci' })).resolves.toEqualTypeOf<CreatedApiKey>();
    expectTypeOf(me.keys.revoke('key_x')).resolves.toEqualTypeOf<ApiKey>();
    // @ts-expect-error the key name is required
    void me.keys.create({ expires_in_days: 3 });
    expectTypeOf(me.auth.changePassword({ current_password: 'a', new_password: 'b' })).resolves.toEqualTypeOf<void>();
    expectTypeOf(me.auth.sessions.list()).resolves.toEqualTypeOf<ActiveSessionList>();
    expectTypeOf(me.auth.sessions.revoke('ses_x')).resolves.toEqualTypeOf<void>();
    expectTypeOf(me.auth.sessions.revokeOthers()).resolves.toEqualTypeOf<void>();
    expectTypeOf(client.auth.requestPasswordReset({ email: 'a@b.c' })).resolves.toEqualTypeOf<PasswordResetRequested>();
    expectTypeOf(client.auth.confirmPasswordReset({ token: 't', new_password: 'p' })).resolves.toEqualTypeOf<void>();
    expectTypeOf(me.auth.deleteAccount({ password: 'p' })).resolves.toEqualTypeOf<void>();
    // @ts-expect-error the current password is required
    void me.auth.changePassword({ new_password: 'b' });
  });

  it('APIPromise is a Promise: it can be returned where a Promise is declared (issue 8 #10)', () => {
    const facets = (): Promise<Facets> => client.facets.list();
    const page = (): Promise<ReleasePage> => client.releases.list();
    expectTypeOf(facets).returns.toEqualTypeOf<Promise<Facets>>();
    expectTypeOf(page).returns.toEqualTypeOf<Promise<ReleasePage>>();
    expectTypeOf(client.facets.list()).toMatchTypeOf<Promise<Facets>>();
  });

  it('iterates releases and pages', () => {
    expectTypeOf(client.releases.list()).toMatchTypeOf<AsyncIterable<Release>>();
    expectTypeOf(client.releases.list().pages()).toMatchTypeOf<AsyncIterable<ReleasePage>>();
    expectTypeOf(client.releases.list().toArray.bind(null)).parameter(0).toEqualTypeOf<{ max: number }>();
  });

  it('takes arrays for filters and rejects other shapes', () => {
    expectTypeOf(client.releases.list).toBeCallableWith({ vocaloid_banks: ['Hatsune Miku'], limit: 50 });
    // @ts-expect-error filters are arrays of strings, not comma-separated strings
    void client.releases.list({ genres: 'rock,pop' });
    // @ts-expect-error there is no offset: pagination is by cursor
    void client.releases.list({ offset: 20 });
  });

  it('types errors', () => {
    expectTypeOf<RateLimitError>().toMatchTypeOf<APIError>();
    expectTypeOf<ConflictError>().toMatchTypeOf<APIError>();
    expectTypeOf<ResponseValidationError>().toMatchTypeOf<ReleasesError>();
    expectTypeOf<RateLimitError['retryAfterMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<APIError['problem']>().toEqualTypeOf<Problem | undefined>();
    // A known kind completes in an editor; a newer server's kind still type-checks as a string.
    expectTypeOf<'rate-limited'>().toMatchTypeOf<NonNullable<APIError['kind']>>();
    expectTypeOf<'a-kind-from-a-newer-server'>().toMatchTypeOf<NonNullable<APIError['kind']>>();
    expectTypeOf<APIError['kind']>().toMatchTypeOf<string | undefined>();
  });

  it('asResponse() and withOptions() (issue 19)', () => {
    expectTypeOf(client.facets.list().asResponse()).toEqualTypeOf<Promise<Response>>();
    expectTypeOf(client.releases.list().asResponse()).toEqualTypeOf<Promise<Response>>();
    expectTypeOf(client.withOptions({ maxRetries: 0 })).toEqualTypeOf<ReleasesClient>();
    // @ts-expect-error withOptions takes the constructor's options
    void client.withOptions({ retries: 0 });
  });
});
