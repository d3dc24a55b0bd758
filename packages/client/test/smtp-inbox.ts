import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server (`smtp-server`) on a free loopback port for the live server's `SMTP_URL`: it keeps each
 * message's recipients and plain text (parsed with `mailparser`). Authentication and STARTTLS are off.
 */
export interface Inbox {
  /** `smtp://127.0.0.1:<port>`. */
  url: string;
  /** The text of the next mail to `to`, waiting for it up to `timeoutMs`. */
  next(to: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startInbox(): Promise<Inbox> {
  const mails: Array<{ to: string[]; text: string }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          mails.push({ to: session.envelope.rcptTo.map((address) => address.address), text: parsed.text ?? '' });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    async next(to, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const at = mails.findIndex((mail) => mail.to.includes(to));
        if (at !== -1) return mails.splice(at, 1)[0]!.text;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of the reset link in a mail's text: what follows `#token=` in `.../reset-password#token=...`. */
export function resetTokenIn(text: string): string {
  const token = /\/reset-password#token=([A-Za-z0-9_-]+)/.exec(text)?.[1];
  if (!token) throw new Error(`no reset link in: ${text}`);
  return token;
}
