import { z } from 'zod';
import { limits } from './limits.js';
import { isoTimestamp } from './timestamps.js';
import { unicodeText, writtenText } from './written-text-schema.js';

/** The shapes of accounts, sessions and API keys (SPEC §3.5). */

export const userIdPattern = new RegExp(`^usr_[A-Za-z0-9]{1,${limits.maxIdLength - 4}}$`);
export const apiKeyIdPattern = new RegExp(`^key_[A-Za-z0-9]{1,${limits.maxIdLength - 4}}$`);
/** Session tokens are 32 random bytes in base64url: 43 characters. */
const sessionTokenLength = 43;
export const sessionTokenPattern = new RegExp(`^[A-Za-z0-9_-]{${sessionTokenLength}}$`);
export const sessionIdPattern = new RegExp(`^ses_[A-Za-z0-9]{1,${limits.maxIdLength - 4}}$`);
/** Password reset tokens are 32 random bytes (256 bits) in base64url: 43 characters. */
const passwordResetTokenLength = 43;
export const passwordResetTokenPattern = new RegExp(`^[A-Za-z0-9_-]{${passwordResetTokenLength}}$`);

/** Trimmed and lower-cased before it is checked, stored or compared: one account per mailbox spelling. */
export const EmailSchema = writtenText(
  z
    .string()
    .trim()
    .toLowerCase()
    .max(limits.maxEmailLength, `must be at most ${limits.maxEmailLength} characters`)
    .email('must be an email address'),
).describe(
  'Trimmed and compared case-insensitively. No control characters, lone surrogates or bidirectional overrides.',
);

/**
 * A new password: any characters (written-text rules do not apply to what is never shown or stored as text),
 * but Unicode, as it is hashed as UTF-8.
 */
export const PasswordSchema = unicodeText(
  z
    .string()
    .min(limits.minPasswordLength, `must be at least ${limits.minPasswordLength} characters`)
    .max(limits.maxPasswordLength, `must be at most ${limits.maxPasswordLength} characters`),
).describe(`${limits.minPasswordLength} to ${limits.maxPasswordLength} characters, and not the email address.`);

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
 * A password the account already has, to prove who is asking: any password up to the maximum length, so that a
 * rule tightened later never locks out an account made under the old one; a wrong one is a 401.
 */
const CurrentPasswordSchema = z
  .string()
  .min(1, 'is required')
  .max(limits.maxPasswordLength, `must be at most ${limits.maxPasswordLength} characters`);

/** The body of login: any password (see `CurrentPasswordSchema`). */
export const LoginSchema = z.object({ email: EmailSchema, password: CurrentPasswordSchema }).strict();

export const UserSchema = z.object({
  id: z.string().max(limits.maxIdLength).regex(userIdPattern).describe('Stable identifier, prefixed `usr_`.'),
  email: z.string().max(limits.maxEmailLength),
  created_at: isoTimestamp,
});
export type User = z.infer<typeof UserSchema>;

export const SessionSchema = z.object({
  token: z
    .string()
    .max(sessionTokenLength)
    .regex(sessionTokenPattern)
    .describe(
      'The session token: the value of the session cookie, and what `Authorization: Bearer` takes for server-side rendering.',
    ),
  expires_at: isoTimestamp.describe('When the session ends unless used: the earlier of the idle and absolute expiry.'),
});
export type Session = z.infer<typeof SessionSchema>;

/** Who signed in, and the session that signing in started. */
export const SignedInSchema = z.object({ user: UserSchema, session: SessionSchema });

export const AuthResponseSchema = z.object({ success: z.literal(true), data: SignedInSchema });
export type AuthResponse = z.infer<typeof AuthResponseSchema>;

/** A session as it is described to its holder, who has the token already. */
export const SessionExpirySchema = SessionSchema.pick({ expires_at: true });

export const SessionInfoSchema = z.object({ user: UserSchema, session: SessionExpirySchema });

export const SessionInfoResponseSchema = z.object({ success: z.literal(true), data: SessionInfoSchema });
export type SessionInfo = z.infer<typeof SessionInfoResponseSchema>['data'];

/** An API key as listed: never the key itself. */
export const ApiKeySchema = z.object({
  id: z.string().max(limits.maxIdLength).regex(apiKeyIdPattern).describe('Stable identifier, prefixed `key_`.'),
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
    name: writtenText(
      z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(limits.maxKeyNameLength, `must be at most ${limits.maxKeyNameLength} characters`),
    ).describe(
      `1 to ${limits.maxKeyNameLength} characters after trimming; no control characters, lone surrogates or bidirectional overrides.`,
    ),
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

export const ApiKeyListSchema = z.object({
  keys: z.array(ApiKeySchema).max(limits.maxListedApiKeys).describe('Newest first, revoked and expired keys included.'),
});

export const ApiKeyListResponseSchema = z.object({ success: z.literal(true), data: ApiKeyListSchema });

/** An API key as it is created: the only time the key itself is part of it. */
export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().max(128).describe('The key itself. This is the only time it is shown: store it now.'),
});

export const CreatedApiKeyResponseSchema = z.object({ success: z.literal(true), data: CreatedApiKeySchema });
export type CreatedApiKey = z.infer<typeof CreatedApiKeyResponseSchema>['data'];

export const ApiKeyResponseSchema = z.object({ success: z.literal(true), data: ApiKeySchema });

export const ApiKeyIdParamsSchema = z.object({
  id: z.string().max(limits.maxIdLength).regex(apiKeyIdPattern, 'is not an API key id (they look like key_...)'),
});

// --- the account's lifecycle (SPEC §3.7) ---------------------------------------------------------------

/**
 * The body of `POST /api/v1/auth/password`. The new password follows the rules of a new account's (besides
 * these, the server refuses the email address and the most common passwords).
 */
export const ChangePasswordSchema = z
  .object({
    current_password: CurrentPasswordSchema.describe('The password the account has now.'),
    new_password: PasswordSchema,
  })
  .strict();
export type ChangePassword = z.input<typeof ChangePasswordSchema>;

/** A session as its user sees it in the list of where they are signed in: never its token. */
export const ActiveSessionSchema = z.object({
  id: z
    .string()
    .max(limits.maxIdLength)
    .regex(sessionIdPattern)
    .describe(
      'Stable identifier, prefixed `ses_`, what `DELETE /api/v1/auth/sessions/{id}` takes. Not derived from the token.',
    ),
  created_at: isoTimestamp.describe('When signing in (or up) started it.'),
  last_used_at: isoTimestamp.describe('When it was last used; updated at most once a minute.'),
  expires_at: isoTimestamp.describe('When it ends unless used: the earlier of the idle and absolute expiry.'),
  user_agent: z
    .string()
    .max(limits.maxUserAgentLength)
    .nullable()
    .describe(
      `The \`User-Agent\` that signed in, its first ${limits.maxUserAgentLength} characters; null when none was sent.`,
    ),
  current: z.boolean().describe('Whether this is the session that made this request.'),
});
export type ActiveSession = z.infer<typeof ActiveSessionSchema>;

export const ActiveSessionListSchema = z.object({
  sessions: z
    .array(ActiveSessionSchema)
    .max(limits.maxListedSessions)
    .describe(`The account's live sessions, newest first (at most the ${limits.maxListedSessions} newest).`),
});

export const ActiveSessionListResponseSchema = z.object({ success: z.literal(true), data: ActiveSessionListSchema });
export type ActiveSessionList = z.infer<typeof ActiveSessionListResponseSchema>['data'];

export const SessionIdParamsSchema = z.object({
  id: z.string().max(limits.maxIdLength).regex(sessionIdPattern, 'is not a session id (they look like ses_...)'),
});

/** The body of `POST /api/v1/auth/password-reset`. */
export const PasswordResetRequestSchema = z.object({ email: EmailSchema }).strict();
export type PasswordResetRequest = z.input<typeof PasswordResetRequestSchema>;

/** The answer to a reset request: the same whether or not an account has the email. */
export const PasswordResetRequestedSchema = z.object({
  expires_in_minutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .describe('How long the link in the mail works, if an account has this email (the answer does not say).'),
});

export const PasswordResetRequestedResponseSchema = z.object({
  success: z.literal(true),
  data: PasswordResetRequestedSchema,
});
export type PasswordResetRequested = z.infer<typeof PasswordResetRequestedResponseSchema>['data'];

/** The body of `POST /api/v1/auth/password-reset/confirm`. */
export const PasswordResetConfirmSchema = z
  .object({
    token: z
      .string()
      .max(passwordResetTokenLength)
      .regex(passwordResetTokenPattern, 'is not a password reset token (the token=... part of the link in the mail)')
      .describe('The token from the reset link: what follows `#token=` in it.'),
    new_password: PasswordSchema,
  })
  .strict();
export type PasswordResetConfirm = z.input<typeof PasswordResetConfirmSchema>;

/** The body of `DELETE /api/v1/auth/account`: the password, so that a stolen session alone cannot do it. */
export const DeleteAccountSchema = z
  .object({ password: CurrentPasswordSchema.describe("The account's password.") })
  .strict();
export type DeleteAccount = z.input<typeof DeleteAccountSchema>;
