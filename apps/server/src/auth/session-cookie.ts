import { sessionCookieNames } from '@releases/contract';
import type { Response } from 'express';

/**
 * The session cookie (SPEC §3.5): `HttpOnly` (no script reads it), `SameSite=Lax` (not sent on cross-site
 * subrequests or POSTs), `Path=/`; under an https public URL also `Secure` and the `__Host-` name, which
 * browsers accept only from a secure origin without a `Domain`.
 */
export class SessionCookie {
  readonly name: string;
  private readonly secure: boolean;

  constructor(publicUrl: string) {
    this.secure = publicUrl.startsWith('https:');
    this.name = this.secure ? sessionCookieNames.secure : sessionCookieNames.plain;
  }

  /** Sets the cookie to live as long as the session can without further use. */
  set(res: Response, token: string, expiresAt: string, now: number): void {
    res.cookie(this.name, token, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: this.secure,
      maxAge: Math.max(0, Date.parse(expiresAt) - now),
      encode: (value) => value,
    });
  }

  /** `Max-Age=0`: the browser forgets it at once. */
  clear(res: Response): void {
    res.cookie(this.name, '', { httpOnly: true, sameSite: 'lax', path: '/', secure: this.secure, maxAge: 0 });
  }
}
