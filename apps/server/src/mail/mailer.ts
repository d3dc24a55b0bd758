import { createTransport, type Transporter } from 'nodemailer';

/** One message: plain text with a simple HTML alternative. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where mail goes out (SPEC §3.7): SMTP through nodemailer. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export interface SmtpSettings {
  /** `SMTP_URL`: `smtp://` (STARTTLS when offered) or `smtps://` (TLS from the start), credentials included. */
  url: string;
  /** `MAIL_FROM`: `Releases <no-reply@example.com>` or a bare address. */
  from: string;
}

/**
 * nodemailer's SMTP transport over `SMTP_URL` (nodemailer reads the URL: host, port, credentials, TLS and
 * options such as `?pool=true`). Its timeouts are bounded, so a mail server that hangs costs a background
 * task its time, never a request's: mail is sent after the request has been answered.
 */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(settings: SmtpSettings) {
    this.transport = createTransport(
      { url: settings.url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 },
      { from: settings.from },
    );
  }

  async send(mail: Mail): Promise<void> {
    await this.transport.sendMail(mail);
  }

  close(): void {
    this.transport.close();
  }
}

/** What may be logged of a failed send: never the message (it holds a reset link), nor the SMTP URL. */
export function describeMailError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: 'unknown error' };
  const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
  return { name: error.name, message: error.message, code, responseCode };
}
