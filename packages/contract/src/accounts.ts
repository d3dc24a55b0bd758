import { z } from 'zod';
import { limits } from './limits.js';

/** The shapes of accounts, sessions and API keys (SPEC §3.5). */

const isoTimestamp = z.string().datetime({ offset: false, precision: 3 });

export const userIdPattern = /^usr_[A-Za-z0-9]{1,60}$/;
export const apiKeyIdPattern = /^key_[A-Za-z0-9]{1,60}$/;
/** Session tokens are 32 random bytes in base64url: 43 characters. */
export const sessionTokenPattern = /^[A-Za-z0-9_-]{43}$/;

/** Trimmed and lower-cased before it is checked, stored or compared: one account per mailbox spelling. */
export const EmailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(limits.maxEmailLength, `must be at most ${limits.maxEmailLength} characters`)
  .email('must be an email address')
  .describe('Trimmed and compared case-insensitively.');

export const PasswordSchema = z
  .string()
  .min(limits.minPasswordLength, `must be at least ${limits.minPasswordLength} characters`)
  .max(limits.maxPasswordLength, `must be at most ${limits.maxPasswordLength} characters`)
  .describe(`${limits.minPasswordLength} to ${limits.maxPasswordLength} characters, and not the email address.`);

/** The body of signup and login. */
export const CredentialsSchema = z
  .object({ email: EmailSchema, password: PasswordSchema })
  .strict()
  .superRefine((body, ctx) => {
    if (body.password.trim().toLowerCase() === body.email) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['password'], message: 'must not be the email address' });
    }
  });
export type Credentials = z.input<typeof CredentialsSchema>;

/**
 * Login takes any password up to the maximum length, so that a rule tightened later never locks out an
 * account made under the old one; a wrong password is a 401 like any other.
 */
export const LoginSchema = z
  .object({
    email: EmailSchema,
    password: z
      .string()
      .min(1, 'is required')
      .max(limits.maxPasswordLength, `must be at most ${limits.maxPasswordLength} characters`),
  })
  .strict();

export const UserSchema = z.object({
  id: z.string().regex(userIdPattern).describe('Stable identifier, prefixed `usr_`.'),
  email: z.string().max(limits.maxEmailLength),
  created_at: isoTimestamp,
});
export type User = z.infer<typeof UserSchema>;

export const SessionSchema = z.object({
  token: z
    .string()
    .regex(sessionTokenPattern)
    .describe(
      'The session token: the value of the session cookie, and what `Authorization: Bearer` takes for server-side rendering.',
    ),
  expires_at: isoTimestamp.describe('When the session ends unless used: the earlier of the idle and absolute expiry.'),
});
export type Session = z.infer<typeof SessionSchema>;

export const AuthResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ user: UserSchema, session: SessionSchema }),
});
export type AuthResponse = z.infer<typeof AuthResponseSchema>;

export const SessionInfoResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ user: UserSchema, session: SessionSchema.pick({ expires_at: true }) }),
});
export type SessionInfo = z.infer<typeof SessionInfoResponseSchema>['data'];

/** An API key as listed: never the key itself. */
export const ApiKeySchema = z.object({
  id: z.string().regex(apiKeyIdPattern).describe('Stable identifier, prefixed `key_`.'),
  name: z.string().min(1).max(limits.maxKeyNameLength),
  start: z.string().max(16).describe('The first characters of the key, to recognise it: `rls_AbCd1234`.'),
  created_at: isoTimestamp,
  last_used_at: isoTimestamp.nullable().describe('Updated at most once a minute.'),
  expires_at: isoTimestamp.nullable(),
  revoked_at: isoTimestamp.nullable(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const CreateApiKeySchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(limits.maxKeyNameLength, `must be at most ${limits.maxKeyNameLength} characters`),
    expires_in_days: z
      .number()
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(limits.maxKeyLifetimeDays, `must be at most ${limits.maxKeyLifetimeDays}`)
      .optional()
      .describe(
        `Days until the key stops working, 1 to ${limits.maxKeyLifetimeDays}; omit for a key that never expires.`,
      ),
  })
  .strict();
export type CreateApiKey = z.input<typeof CreateApiKeySchema>;

export const ApiKeyListResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ keys: z.array(ApiKeySchema).describe('Newest first, revoked and expired keys included.') }),
});

export const CreatedApiKeyResponseSchema = z.object({
  success: z.literal(true),
  data: ApiKeySchema.extend({
    key: z.string().max(128).describe('The key itself. This is the only time it is shown: store it now.'),
  }),
});
export type CreatedApiKey = z.infer<typeof CreatedApiKeyResponseSchema>['data'];

export const ApiKeyResponseSchema = z.object({ success: z.literal(true), data: ApiKeySchema });

export const ApiKeyIdParamsSchema = z.object({
  id: z.string().regex(apiKeyIdPattern, 'is not an API key id (they look like key_...)'),
});
