import { sessionCookieNames } from '@releases/contract';
import { serialize } from 'cookie';

/**
 * The session cookie (SPEC §3.5): `HttpOnly` (no script reads it), `SameSite=Lax` (not sent on cross-site
 * subrequests or POSTs), `Path=/`; under an https public URL also `Secure` and the `__Host-` name, which
 * browsers accept only from a secure origin without a `Domain`.
 *
 * It gives `Set-Cookie` values rather than writing to a response, so whoever answers (a route, or the answer
 * cache renewing a sliding session) sets the same cookie.
 */
export class SessionCookie {
  readonly name: string;
  private readonly secure: boolean;

  constructor(publicUrl: string) {
    this.secure = publicUrl.startsWith('https:');
    this.name = this.secure ? sessionCookieNames.secure : sessionCookieNames.plain;
  }

  /** The cookie, to live as long as the session can without further use. */
  setting(token: string, expiresAt: string, now: number): string {
    const maxAgeMs = Math.max(0, Date.parse(expiresAt) - now);
    return this.serialize(token, maxAgeMs, now);
  }

  /** `Max-Age=0`: the browser forgets it at once. */
  clearing(now: number): string {
    return this.serialize('', 0, now);
  }

  private serialize(value: string, maxAgeMs: number, now: number): string {
    return serialize(this.name, value, {
      maxAge: Math.floor(maxAgeMs / 1000),
      path: '/',
      expires: new Date(now + maxAgeMs),
      httpOnly: true,
      secure: this.secure,
      sameSite: 'lax',
      encode: (text) => text,
    });
  }
}
