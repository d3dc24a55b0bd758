import type { AddressInfo } from 'node:net';
import { passwordResetTokenParameter } from '@releases/contract';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail as the SMTP server received it, parsed. */
export interface ReceivedMail {
  /** The envelope's recipients. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  /** The message as it came over the wire. */
  raw: string;
}

/**
 * A real SMTP server (`smtp-server`) on a free loopback port, for the server to send mail to over
 * `SMTP_URL=smtp://127.0.0.1:<port>`. Authentication and STARTTLS are off (loopback only); every message is
 * kept, parsed with `mailparser`.
 */
export interface Inbox {
  /** `smtp://127.0.0.1:<port>`. */
  url: string;
  messages: ReceivedMail[];
  /** The next mail to `to` not yet taken, waiting for it up to `timeoutMs`. */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /**
   * Holds every message (a mail server that does not answer) until the returned function is called: its data is
   * read, but neither kept nor acknowledged before then.
   */
  hold(): () => void;
  close(): Promise<void>;
}

/** `port`: listen there (a mail server that comes up where one was expected); a free one by default. */
export async function startInbox(options: { port?: number } = {}): Promise<Inbox> {
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters = new Set<() => void>();
  let held: Promise<void> = Promise.resolve();
  const inbox = {} as Inbox;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        Promise.all([simpleParser(raw), held]).then(
          ([parsed]) => {
            messages.push({
              to: session.envelope.rcptTo.map((address) => address.address),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              raw,
            });
            for (const wake of waiters) wake();
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(inbox, {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    hold() {
      let release = () => undefined as void;
      held = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
    async next(to: string, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((mail) => !taken.has(mail) && mail.to.includes(to));
        if (found) {
          taken.add(found);
          return found;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiters.add(wake);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The reset token of a mail's link (`.../reset-password#token=<token>`), as a person following it would read it. */
export function resetLinkOf(mail: ReceivedMail): { url: URL; token: string } {
  const link = /https?:\/\/\S+\/reset-password#\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no reset link in: ${mail.text}`);
  const url = new URL(link);
  const token = new URLSearchParams(url.hash.slice(1)).get(passwordResetTokenParameter);
  if (!token) throw new Error(`no token in the link's fragment: ${link}`);
  return { url, token };
}
