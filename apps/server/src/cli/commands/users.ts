import { CredentialsSchema } from '@releases/contract';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { userJson } from '../../auth/accounts.js';
import type { Services } from '../../services.js';
import { stringOption, UsageError, type CommandArgs, type Output } from '../output.js';
import { joinText, text } from '../printable.js';

export async function users(services: Services, output: Output, args: CommandArgs): Promise<number> {
  const [sub] = args.positionals;
  if (sub !== 'create') throw new UsageError(text`users takes create`);
  const email = stringOption(args, 'email');
  if (email === undefined) throw new UsageError(text`users create needs --email E (the password is read from stdin)`);
  const password = await readPassword();
  const parsed = CredentialsSchema.safeParse({ email, password });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => text`${issue.path.join('.')}: ${issue.message}`);
    throw new UsageError(joinText(problems, '\n'));
  }
  const result = await services.accounts.createUser(parsed.data.email, parsed.data.password);
  if (result === 'email-taken') {
    output.note(text`An account with the email ${parsed.data.email} already exists.`);
    return 1;
  }
  output.result(userJson(result), text`Created ${result.id} (${result.email}).`);
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
