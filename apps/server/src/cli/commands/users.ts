import { CredentialsSchema, EmailSchema, PasswordSchema } from '@releases/contract';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { userJson } from '../../auth/accounts.js';
import { sessionExpiresAt } from '../../auth/sessions.js';
import type { Services } from '../../services.js';
import type { UserWithPassword } from '../../db/interface.js';
import { stringOption, UsageError, type CommandArgs, type Output } from '../output.js';
import { joinText, text, type PrintableText } from '../printable.js';

export async function users(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const [sub] = args.positionals;
  switch (sub) {
    case 'create':
      return createUser(services, output, args);
    case 'set-password':
      return setPassword(services, output, args);
    case 'delete':
      return deleteUser(services, output, args);
    case 'sessions':
      return sessions(services, output, args);
    default:
      throw new UsageError(text`users takes create, set-password, delete or sessions`);
  }
}

function issuesText(issues: ReadonlyArray<{ path: ReadonlyArray<string | number>; message: string }>): PrintableText {
  return joinText(
    issues.map((issue) => text`${issue.path.join('.')}: ${issue.message}`),
    '\n',
  );
}

async function createUser(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const email = stringOption(args, 'email');
  if (email === undefined) throw new UsageError(text`users create needs --email E (the password is read from stdin)`);
  const password = await readPassword();
  const parsed = CredentialsSchema.safeParse({ email, password });
  if (!parsed.success) throw new UsageError(issuesText(parsed.error.issues));
  // The rules of signing up: the server's list of common passwords too.
  const problem = services.accounts.newPasswordProblem(parsed.data.password, parsed.data.email);
  if (problem !== undefined) throw new UsageError(text`password: ${problem}`);
  const result = await services.accounts.createUser(parsed.data.email, parsed.data.password);
  if (result === 'email-taken') {
    output.note(text`An account with the email ${parsed.data.email} already exists.`);
    return 1;
  }
  output.result(userJson(result), text`Created ${result.id} (${result.email}).`);
  return 0;
}

/** The account named by `--email`, or a usage error that says what is wrong. */
async function accountOf(services: Services, args: CommandArgs, command: string): Promise<UserWithPassword> {
  const option = stringOption(args, 'email');
  if (option === undefined) throw new UsageError(text`users ${command} needs --email E`);
  const parsed = EmailSchema.safeParse(option);
  if (!parsed.success) {
    throw new UsageError(
      text`--email takes an email address (${parsed.error.issues[0]?.message ?? ''}); got "${option}"`,
    );
  }
  const user = await services.storage.accounts.findUserByEmail(parsed.data);
  if (!user) throw new UsageError(text`no user with the email ${parsed.data}`);
  return user;
}

async function setPassword(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const user = await accountOf(services, args, 'set-password');
  const password = await readPassword();
  const parsed = PasswordSchema.safeParse(password);
  if (!parsed.success) {
    throw new UsageError(issuesText(parsed.error.issues.map((issue) => ({ ...issue, path: ['password'] }))));
  }
  const problem = services.accounts.newPasswordProblem(parsed.data, user.email);
  if (problem !== undefined) throw new UsageError(text`password: ${problem}`);
  const before = (await services.sessions.list(user.id)).length;
  // Every session of the account ends with it, in one transaction: whoever had one must sign in again.
  if (!(await services.accounts.setPassword(user.id, parsed.data))) {
    output.note(text`The account ${user.email} was deleted meanwhile.`);
    return 1;
  }
  output.result(
    { ...userJson(user), password_set: true, sessions_ended: before },
    text`Set a new password for ${user.id} (${user.email}); its sessions have ended.`,
  );
  return 0;
}

async function deleteUser(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const user = await accountOf(services, args, 'delete');
  // Its keys are revoked through the key manager first (at Unkey too); if that fails nothing is deleted.
  const deleted = await services.accounts.deleteAccount(user.id);
  if (!deleted) {
    output.note(text`The account ${user.email} was deleted meanwhile.`);
    return 1;
  }
  output.result(
    { ...userJson(user), deleted: true, sessions_ended: deleted.sessions, keys_deleted: deleted.keys },
    text`Deleted ${user.id} (${user.email}) with its ${deleted.sessions} sessions and ${deleted.keys} API keys.`,
  );
  return 0;
}

async function sessions(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const user = await accountOf(services, args, 'sessions');
  const live = await services.sessions.list(user.id);
  const listed = live.map((session) => ({
    id: session.id,
    created_at: session.createdAt,
    last_used_at: session.lastSeenAt,
    expires_at: sessionExpiresAt(session),
    user_agent: session.userAgent,
  }));
  const lines = listed.map(
    (session) =>
      text`${session.id}  created ${session.created_at}  last used ${session.last_used_at}  expires ${session.expires_at}  ${session.user_agent ?? '(no user agent)'}`,
  );
  const listing = lines.length === 0 ? text`No live sessions for ${user.email}.` : joinText(lines, '\n');
  if (args.values['end-all'] !== true) {
    output.result({ user: userJson(user), sessions: listed }, listing);
    return 0;
  }
  const ended = await services.sessions.endAll(user.id);
  output.result(
    { user: userJson(user), sessions: listed, ended },
    joinText([listing, text`\nEnded ${ended} sessions of ${user.email}.`]),
  );
  return 0;
}

/**
 * The password, from stdin: piped (`printf '%s' "$PASSWORD" | pnpm cli users create ...`), so it never
 * appears in the process list or shell history, or typed at a prompt that does not echo it.
 */
async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    // One trailing newline is the shell's (`echo`), not the password's.
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  process.stderr.write('Password: ');
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const prompt = createInterface({ input: process.stdin, output: silent, terminal: true });
  try {
    return await prompt.question('');
  } finally {
    prompt.close();
    process.stderr.write('\n');
  }
}
