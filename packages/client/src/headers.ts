import { headerValueProblem } from '@releases/contract/wire';
import { ReleasesError } from './errors.js';

/**
 * Header values by name. Names are case-insensitive, as in HTTP: `X-Trace` and `x-trace` are one header.
 * `null` removes a header the SDK (or an earlier set) would send.
 */
export type HeaderValues = Record<string, string | null | undefined>;

/**
 * Merges header sets in order, by lower-cased name: a later set replaces a value, never adds a second one
 * (a record spread would keep both spellings, and `Headers` would then send `a, b`). Throws a
 * `ReleasesError` naming the header that `fetch` could not send.
 */
export function mergeHeaders(...sets: readonly (HeaderValues | undefined)[]): Headers {
  const headers = new Headers();
  for (const set of sets) {
    for (const [name, value] of Object.entries(set ?? {})) {
      if (value === undefined) continue;
      try {
        if (value === null) headers.delete(name);
        else headers.set(name, value);
      } catch (error) {
        throw new ReleasesError(
          `The header ${JSON.stringify(name)} cannot be sent: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      // fetch accepts, and silently mangles, what a header line cannot carry; refuse it here instead.
      if (value !== null && /[\0\r\n]/.test(value)) {
        throw new ReleasesError(`The header ${JSON.stringify(name)} cannot be sent: its value contains a line break.`);
      }
    }
  }
  return headers;
}

/**
 * Refuses a credential that cannot travel as a header value, before any request (SPEC §4). Its format is
 * the server's to judge: keys differ by key manager (local keys carry a checksum, Unkey keys do not), and
 * an SDK that second-guessed them would refuse valid keys.
 */
export function assertSendableCredential(option: 'apiKey' | 'sessionToken', value: unknown): asserts value is string {
  const problem = typeof value === 'string' ? headerValueProblem(value) : 'is not a string';
  if (problem === undefined) return;
  const what = option === 'apiKey' ? 'The API key (apiKey)' : 'The session token (sessionToken)';
  const hint =
    option === 'apiKey'
      ? 'Pass the key exactly as it was shown when it was created, or set RELEASES_API_KEY.'
      : 'Pass the session.token that auth.login() or auth.signup() returned.';
  throw new ReleasesError(`${what} ${problem}. ${hint}`);
}
