import { webAppPaths } from '@releases/contract/wire';

/** The app's pages (SPEC §9), defined once in the contract: the server serves `index.html` on the same list. */
export const routes = webAppPaths;
