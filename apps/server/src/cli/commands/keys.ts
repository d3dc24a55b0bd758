import { EmailSchema, limits } from '@releases/contract';
import { parseDuration } from '../../config.js';
import { apiKeyJson } from '../../routes/keys.js';
import type { Services } from '../../services.js';
import { stringOption, UsageError, type CommandArgs, type Output } from '../output.js';

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
      throw new UsageError('keys takes create, list or revoke');
  }
}

async function ownerOf(services: Services, email: string | undefined): Promise<string | null> {
  if (email === undefined) return null;
  const parsed = EmailSchema.safeParse(email);
  if (!parsed.success) throw new UsageError(`--user takes an email address; got ${JSON.stringify(email)}`);
  const user = await services.storage.accounts.findUserByEmail(parsed.data);
  if (!user) throw new UsageError(`no user with the email ${parsed.data} (create one with: users create --email ...)`);
  return user.id;
}

function lifetimeOf(text: string | undefined): number | null {
  if (text === undefined) return null;
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    throw new UsageError('--expires-in takes a duration such as 30d, 12h or 90m');
  }
  if (ms <= 0) throw new UsageError('--expires-in must be positive');
  return ms;
}

async function createKey(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const name = stringOption(args, 'name')?.trim() ?? '';
  if (!name || name.length > limits.maxKeyNameLength) {
    throw new UsageError(`keys create needs --name (1 to ${limits.maxKeyNameLength} characters)`);
  }
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
      `That user already has ${limits.maxActiveKeysPerUser} active keys, the most allowed. Revoke one first.`,
    );
    return 1;
  }
  const { key, record } = result;
  output.result(
    { ...apiKeyJson(record), owner_id: record.ownerId, key },
    `Created ${record.id} (${record.name}). The key is shown only now; store it safely:\n\n  ${key}\n`,
  );
  return 0;
}

async function listKeys(services: Services, output: Output): Promise<number> {
  const records = await services.storage.keys.list();
  const now = services.clock.now();
  const lines = records.map((key) => {
    const state = key.revokedAt ? 'revoked' : key.expiresAt && Date.parse(key.expiresAt) <= now ? 'expired' : 'active';
    return (
      `${key.id}  ${key.displayStart}…  ${state.padEnd(7)}  ${key.name}  created ${key.createdAt}` +
      `${key.expiresAt ? `  expires ${key.expiresAt}` : ''}${key.lastUsedAt ? `  last used ${key.lastUsedAt}` : ''}`
    );
  });
  output.result(
    { keys: records.map((record) => ({ ...apiKeyJson(record), owner_id: record.ownerId })) },
    lines.length === 0 ? 'No API keys.' : lines.join('\n'),
  );
  return 0;
}

async function revokeKey(services: Services, output: Output, id: string | undefined): Promise<number> {
  if (!id) throw new UsageError('keys revoke needs an ID (see keys list)');
  const existing = await services.storage.keys.findById(id);
  if (!existing || existing.revokedAt) {
    output.note(`No active key has the id ${id}.`);
    return 1;
  }
  const record = await services.keys.revoke(id);
  output.result(
    { ...apiKeyJson(record ?? existing), revoked: true },
    `Revoked ${id}. It stops working everywhere within a few seconds.`,
  );
  return 0;
}
