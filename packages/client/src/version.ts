/** Replaced at build time (tsup `define`, and vitest's for tests) by the `version` of package.json. */
declare const __RELEASES_CLIENT_VERSION__: string;

/**
 * The version of this SDK, e.g. `'0.1.0'`. Sent as `x-releases-client` (and in `User-Agent`) outside browsers,
 * so the service's operators can see which SDK versions call them.
 */
export const VERSION: string = __RELEASES_CLIENT_VERSION__;

interface RuntimeGlobals {
  document?: unknown;
  navigator?: { userAgent?: unknown };
  Deno?: { version?: { deno?: string } };
  process?: { versions?: { node?: string; bun?: string } };
}

/**
 * The runtime, as `name/version`. Bun and Deno also fill `process.versions.node` (and workerd does under
 * `nodejs_compat`), so their own marks are read first. workerd tells no version to its workers.
 */
function runtimeName(globals: RuntimeGlobals): string | undefined {
  if (globals.Deno?.version?.deno) return `deno/${globals.Deno.version.deno}`;
  if (globals.process?.versions?.bun) return `bun/${globals.process.versions.bun}`;
  if (globals.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  if (globals.process?.versions?.node) return `node/${globals.process.versions.node}`;
  return undefined;
}

/**
 * Headers that name this SDK and its runtime, for runtimes that let a script set them: Node, Deno, Bun and
 * workerd. None in a browser page: it forbids `User-Agent`, and a custom header would turn every
 * cross-origin GET into a CORS preflight that the API does not allow.
 */
export function identificationHeaders(globals: object = globalThis): Record<string, string> {
  const runtimeGlobals = globals as RuntimeGlobals;
  if (runtimeGlobals.document !== undefined) return {};
  const runtime = runtimeName(runtimeGlobals);
  if (runtime === undefined) return {};
  return { 'user-agent': `releases-client/${VERSION} ${runtime}`, 'x-releases-client': VERSION };
}
