import { webAppPaths } from '@releases/contract/wire';

/** The app's pages (SPEC §9), defined once in the contract: the server serves `index.html` on the same list. */
export const routes = webAppPaths;

/**
 * One release's page, `/releases/{id}` (SPEC §9). Not in `webAppPaths`, which lists fixed paths: the server
 * gives `index.html` to a browser navigating to any path that names no file, this one included.
 */
const releasePrefix = '/releases/';

export function releasePath(id: string): string {
  return `${releasePrefix}${encodeURIComponent(id)}`;
}

/** The release id of a `/releases/{id}` path, else undefined. */
export function releaseIdOf(pathname: string): string | undefined {
  if (!pathname.startsWith(releasePrefix)) return undefined;
  const rest = pathname.slice(releasePrefix.length);
  if (rest === '' || rest.includes('/')) return undefined;
  try {
    return decodeURIComponent(rest);
  } catch {
    return undefined;
  }
}
