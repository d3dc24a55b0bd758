/** Replaced at build time (tsup `define`, and vitest's for tests) by the `version` of package.json. */
declare const __RELEASES_CLIENT_VERSION__: string;

/**
 * The version of this SDK, e.g. `'0.1.0'`. Sent as `x-releases-client` (and in `User-Agent`) outside browsers,
 * so the service's operators can see which SDK versions call them.
 */
export const VERSION: string = __RELEASES_CLIENT_VERSION__;

interface RuntimeGlobals {
  document?: unknown;
  Deno?: { version?: { deno?: string } };
  process?: { versions?: { node?: string; bun?: string } };
}

/**
 * Headers that name this SDK and its runtime, for runtimes that let a script set them: Node, Deno and Bun.
 * None in a browser page: it forbids `User-Agent`, and a custom header would turn every cross-origin GET
 * into a CORS preflight that the API does not allow.
 */
export function identificationHeaders(): Record<string, string> {
  const globals = globalThis as RuntimeGlobals;
  if (globals.document !== undefined) return {};
  const runtime = globals.Deno?.version?.deno
    ? `deno/${globals.Deno.version.deno}`
    : globals.process?.versions?.bun
      ? `bun/${globals.process.versions.bun}`
      : globals.process?.versions?.node
        ? `node/${globals.process.versions.node}`
        : undefined;
  if (runtime === undefined) return {};
  return { 'user-agent': `releases-client/${VERSION} ${runtime}`, 'x-releases-client': VERSION };
}
