import { CreateApiKeySchema, EmailSchema, limits } from '@releases/contract';
import { parseDuration } from '../../config.js';
import { apiKeyJson } from '../../keys/api-key-json.js';
import type { Services } from '../../services.js';
import { stringOption, UsageError, type CommandArgs, type Output } from '../output.js';
import { joinText, text } from '../printable.js';

export async function keys(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const [sub, ...rest] = args.positionals;
  switch (sub) {
    case 'create':
      return createKey(services, output, args);
    case 'list':
      return listKeys(services, output);
    case 'revoke':
      return revokeKey(services, output, rest[0]);
    default:
      throw new UsageError(text`keys takes create, list or revoke`);
  }
}

async function ownerOf(services: Services, email: string | undefined): Promise<string | null> {
  if (email === undefined) return null;
  const parsed = EmailSchema.safeParse(email);
  if (!parsed.success) {
    throw new UsageError(
      text`--user takes an email address (${parsed.error.issues[0]?.message ?? ''}); got "${email}"`,
    );
  }
  const user = await services.storage.accounts.findUserByEmail(parsed.data);
  if (!user) {
    throw new UsageError(text`no user with the email ${parsed.data} (create one with: users create --email ...)`);
  }
  return user.id;
}

function lifetimeOf(option: string | undefined): number | null {
  if (option === undefined) return null;
  let ms: number;
  try {
    ms = parseDuration(option);
  } catch {
    throw new UsageError(text`--expires-in takes a duration such as 30d, 12h or 90m`);
  }
  if (ms <= 0) throw new UsageError(text`--expires-in must be positive`);
  return ms;
}

async function createKey(services: Services, output: Output, args: CommandArgs): Promise<number> {
  // The API's own rule for key names (length, and written text: no control characters).
  const parsedName = CreateApiKeySchema.shape.name.safeParse(stringOption(args, 'name') ?? '');
  if (!parsedName.success) {
    throw new UsageError(
      text`keys create needs --name (1 to ${limits.maxKeyNameLength} characters): it ${parsedName.error.issues[0]?.message ?? 'is invalid'}`,
    );
  }
  const name = parsedName.data;
  const ownerId = await ownerOf(services, stringOption(args, 'user'));
  const lifetimeMs = lifetimeOf(stringOption(args, 'expires-in'));
  const result = await services.keys.create({
    name,
    ownerId,
    lifetimeMs,
    // The same bound as the settings screen for a user's keys; keys without an owner are the operator's.
    ...(ownerId ? { maxActive: limits.maxActiveKeysPerUser } : {}),
  });
  if (!result.created) {
    output.note(
      text`That user already has ${limits.maxActiveKeysPerUser} active keys, the most allowed. Revoke one first.`,
    );
    return 1;
  }
  const { key, record } = result;
  output.result(
    { ...apiKeyJson(record), owner_id: record.ownerId, key },
    text`Created ${record.id} (${record.name}). The key is shown only now; store it safely:\n\n  ${key}\n`,
  );
  return 0;
}

async function listKeys(services: Services, output: Output): Promise<number> {
  const records = await services.storage.keys.list();
  const now = services.clock.now();
  const lines = records.map((key) => {
    const state = key.revokedAt ? 'revoked' : key.expiresAt && Date.parse(key.expiresAt) <= now ? 'expired' : 'active';
    return joinText([
      text`${key.id}  ${key.displayStart}…  ${state.padEnd(7)}  ${key.name}  created ${key.createdAt}`,
      ...(key.expiresAt ? [text`  expires ${key.expiresAt}`] : []),
      ...(key.lastUsedAt ? [text`  last used ${key.lastUsedAt}`] : []),
    ]);
  });
  output.result(
    { keys: records.map((record) => ({ ...apiKeyJson(record), owner_id: record.ownerId })) },
    lines.length === 0 ? text`No API keys.` : joinText(lines, '\n'),
  );
  return 0;
}

async function revokeKey(services: Services, output: Output, id: string | undefined): Promise<number> {
  if (!id) throw new UsageError(text`keys revoke needs an ID (see keys list)`);
  const existing = await services.storage.keys.findById(id);
  if (!existing || existing.revokedAt) {
    output.note(text`No active key has the id ${id}.`);
    return 1;
  }
  const record = await services.keys.revoke(id);
  output.result(
    { ...apiKeyJson(record ?? existing), revoked: true },
    text`Revoked ${id}. It stops working everywhere within a few seconds.`,
  );
  return 0;
}
