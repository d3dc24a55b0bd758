import { limits, type contract } from '@releases/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import { apiKeyJson } from '../keys/api-key-json.js';
import type { KeyManager } from '../keys/key-manager.js';
import { sessionCaller } from '../http/request-context.js';
import { HttpProblem } from '../kernel/http-problem.js';
import { StorageConflictError } from '../db/errors.js';
import type { ApiKeyStore } from '../db/interface.js';
import { authMessages, challengesByAuth, unauthorized } from '../auth/verify-credential.js';

const dayMs = 86_400_000;

/** The signed-in user's API keys (SPEC §3.5). Another user's key is a 404: its existence is not ours to tell. */
export function keysRoutes(deps: { keys: KeyManager; store: ApiKeyStore }): {
  list: AppRouteImplementation<typeof contract.keys.list>;
  create: AppRouteImplementation<typeof contract.keys.create>;
  revoke: AppRouteImplementation<typeof contract.keys.revoke>;
} {
  return {
    list: async ({ req }) => {
      const keys = await deps.store.list(sessionCaller(req).userId);
      return { status: 200, body: { success: true, data: { keys: keys.map(apiKeyJson) } } };
    },

    create: async ({ body, req }) => {
      const result = await deps.keys
        .create({
          name: body.name,
          ownerId: sessionCaller(req).userId,
          lifetimeMs: body.expires_in_days === undefined ? null : body.expires_in_days * dayMs,
          maxActive: limits.maxActiveKeysPerUser,
        })
        .catch((error: unknown) => {
          // The account was deleted since this session was last checked (through another instance, whose end of
          // it this one learns within a second): the session is no longer good.
          if (error instanceof StorageConflictError && error.reason === 'missing-reference') {
            throw unauthorized(authMessages.invalidSession, challengesByAuth.session);
          }
          throw error;
        });
      if (!result.created) {
        throw new HttpProblem(
          'conflict',
          `This account already has ${limits.maxActiveKeysPerUser} active API keys, the most it may hold. Revoke one first.`,
        );
      }
      return { status: 201, body: { success: true, data: { ...apiKeyJson(result.record), key: result.key } } };
    },

    revoke: async ({ params, req }) => {
      const record = await deps.store.findById(params.id);
      if (!record || record.ownerId !== sessionCaller(req).userId) {
        throw new HttpProblem('not-found', `You have no API key with the id ${params.id}.`);
      }
      const revoked = record.revokedAt ? record : await deps.keys.revoke(record.id);
      if (!revoked) throw new HttpProblem('not-found', `You have no API key with the id ${params.id}.`);
      return { status: 200, body: { success: true, data: apiKeyJson(revoked) } };
    },
  };
}
