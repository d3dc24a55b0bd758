import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * What a new password must not be (SPEC §3.7), beyond the contract's length rule: the account's email, one of
 * the most common passwords, or a short pattern repeated. Checked on sign-up, password change and reset (and
 * by the CLI); signing in accepts any password, so an account made before a rule still signs in.
 *
 * The list is `@zxcvbn-ts/language-common`'s `passwords-common` dictionary (about 49,000 passwords from
 * breach corpora, most common first), kept as a Set of lowercased entries: loaded once, a lookup per check.
 * That dictionary holds each repeated pattern once (`111111`, not `1111111111`), as zxcvbn finds repeats by
 * itself; so repeats are refused here by their own rule (`xxxxxxxxxx`, `abcabcabcabc`, `passwordpassword`).
 */
export const passwordRules = {
  email: 'must not be the email address',
  common: 'is among the most common passwords, which attackers try first: choose another',
  repeated: 'is a short pattern repeated, which attackers try first like the most common passwords: choose another',
} as const;

/** Units at most this long repeated are refused whatever they are; longer ones when they are common. */
const maxRepeatedUnitLength = 4;
const repetition = /^(.+?)\1+$/su;

export class PasswordPolicy {
  private constructor(private readonly common: ReadonlySet<string>) {}

  /** Loads the list (a few tens of milliseconds): once, when the services are built. */
  static load(): PasswordPolicy {
    return new PasswordPolicy(new Set(dictionary['passwords-common'].map((entry) => entry.toLowerCase())));
  }

  /** How many passwords the list holds. */
  get size(): number {
    return this.common.size;
  }

  /** Why `password` may not be a new password of the account with `email`, or undefined when it may. */
  problem(password: string, email: string): string | undefined {
    const folded = password.normalize('NFKC').trim().toLowerCase();
    if (folded === email.trim().toLowerCase()) return passwordRules.email;
    if (this.common.has(folded)) return passwordRules.common;
    const unit = repetition.exec(folded)?.[1];
    if (unit !== undefined && ([...unit].length <= maxRepeatedUnitLength || this.common.has(unit))) {
      return passwordRules.repeated;
    }
    return undefined;
  }
}
