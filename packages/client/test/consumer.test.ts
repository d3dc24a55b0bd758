import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveServer, type LiveServer } from './server-harness.js';

/**
 * The package as a stranger gets it: `pnpm pack`, `npm install` of the tarball into an empty project, then
 * ESM and CommonJS scripts against the live server, type-checking under two module resolutions, and a
 * browser bundle whose size is the budget in the package README.
 */
const run = promisify(execFile);
const require = createRequire(import.meta.url);
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = require.resolve('typescript/bin/tsc');
const esbuild = require.resolve('esbuild/bin/esbuild');
const browserBudgetBytes = 15 * 1024;

let project: string;
let server: LiveServer;
let key: string;

/**
 * The README's install lines (its `## Install` block): the pack command, run in the repository, and the install
 * command, run in the project, each as written but for the folder the tarball goes to.
 */
function readmeInstallLines(): { pack: string[]; install: string[]; folder: string } {
  const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
  const block = /## Install[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const lines = block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  const pack = lines.find((line) => line.startsWith('pnpm ') && line.includes(' pack '))?.split(/\s+/);
  const install = lines.find((line) => line.startsWith('npm install '))?.split(/\s+/);
  const folder = pack?.[pack.indexOf('--pack-destination') + 1];
  if (!pack || !install || !folder)
    throw new Error(`the README's install block is not a pack and an install:\n${block}`);
  return { pack, install, folder };
}

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'releases-consumer-'));
  const { pack, install, folder } = readmeInstallLines();
  // The tarball goes into the project itself, where the tests below find it again.
  const here = (words: string[]) => words.map((word) => word.replace(folder, project));
  await run(pack[0]!, here(pack.slice(1)), { cwd: path.resolve(packageRoot, '../..') });
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }),
  );
  await run(install[0]!, [...here(install.slice(1)), '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project });
  server = await startLiveServer();
  key = (await server.createKey()).key;
});
afterAll(async () => {
  await server?.stop();
  rmSync(project, { recursive: true, force: true });
});

const env = () => ({ ...process.env, RELEASES_API_KEY: key, RELEASES_BASE_URL: server.baseUrl });

describe('the packed package, installed alone', () => {
  it('has no dependencies to fetch: the contract is bundled', () => {
    const manifest = JSON.parse(
      readFileSync(path.join(project, 'node_modules/@releases/client/package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(readdirSync(path.join(project, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([
      '@releases',
    ]);
  });

  it('works from an ESM script, configured by the environment', async () => {
    writeFileSync(
      path.join(project, 'esm.mjs'),
      `import { ReleasesClient } from '@releases/client';
const client = new ReleasesClient();
const page = await client.releases.list({ vocaloid_banks: ['Hatsune Miku'], limit: 3 });
console.log(JSON.stringify({ health: await client.health.check(), count: page.releases.length, next: page.hasNextPage() }));`,
    );
    const { stdout } = await run(process.execPath, ['esm.mjs'], { cwd: project, env: env() });
    expect(JSON.parse(stdout)).toEqual({ health: 'OK', count: 3, next: true });
  });

  it('works from a CommonJS script, errors included', async () => {
    writeFileSync(
      path.join(project, 'cjs.cjs'),
      `const { ReleasesClient, NotFoundError } = require('@releases/client');
(async () => {
  const client = new ReleasesClient();
  const error = await client.releases.get('rel_nothing').catch((e) => e);
  const facets = await client.facets.list();
  console.log(JSON.stringify({ notFound: error instanceof NotFoundError, status: error.status, banks: facets.vocaloid_banks.length > 0 }));
})();`,
    );
    const { stdout } = await run(process.execPath, ['cjs.cjs'], { cwd: project, env: env() });
    expect(JSON.parse(stdout)).toEqual({ notFound: true, status: 404, banks: true });
  });

  it('runs the README example as written', async () => {
    const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
    const example = /```ts\n(import \{ ReleasesClient \}[\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    writeFileSync(path.join(project, 'readme-example.mjs'), example!);
    const { stdout } = await run(process.execPath, ['readme-example.mjs'], { cwd: project, env: env() });
    expect(stdout.split('\n')[0]).toBe('OK');
    expect(stdout).toMatch(/^50 \S+ true$/m);
  });

  it.each([
    ['node16', { module: 'node16', moduleResolution: 'node16' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ])('type-checks with moduleResolution %s', async (name, options) => {
    writeFileSync(
      path.join(project, `typed-${name}.mts`),
      `import { ReleasesClient, RateLimitError, type Release, type ReleaseListParams } from '@releases/client';
const params: ReleaseListParams = { genres: ['rock'], sort: 'release_date' };
const client = new ReleasesClient({ apiKey: async () => 'rls_x', timeoutMs: 5000 });
async function titles(): Promise<string[]> {
  const out: string[] = [];
  for await (const release of client.releases.list(params)) out.push((release satisfies Release).title);
  return out;
}
const wait = (e: unknown) => (e instanceof RateLimitError ? e.retryAfterMs ?? 0 : 0);
export { titles, wait };
`,
    );
    writeFileSync(
      path.join(project, `tsconfig.${name}.json`),
      JSON.stringify({
        compilerOptions: {
          ...options,
          target: 'es2022',
          lib: ['es2022', 'dom', 'dom.iterable'],
          strict: true,
          noEmit: true,
          types: [],
        },
        files: [`typed-${name}.mts`],
      }),
    );
    await expect(run(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], { cwd: project })).resolves.toBeDefined();
  });

  it(`bundles for the browser under ${browserBudgetBytes / 1024} KB minified and gzipped`, async () => {
    writeFileSync(
      path.join(project, 'browser.mjs'),
      `import { ReleasesClient } from '@releases/client';\nexport const client = new ReleasesClient({ fetchOptions: { credentials: 'include' } });\n`,
    );
    await run(
      esbuild,
      ['browser.mjs', '--bundle', '--minify', '--format=esm', '--platform=browser', '--outfile=bundle.js'],
      { cwd: project },
    );
    const bundle = readFileSync(path.join(project, 'bundle.js'));
    const gzipped = gzipSync(bundle, { level: 9 }).length;
    console.info(`browser bundle: ${bundle.length} bytes minified, ${gzipped} bytes gzipped`);
    expect(gzipped).toBeLessThanOrEqual(browserBudgetBytes);
    expect(bundle.toString()).not.toMatch(/ZodError|ts-rest/);
  });
});

describe('one error family across entry points (issue 8 #5)', () => {
  // Its own project: the tarball plus zod (the validation entry's optional peer), zod from this workspace.
  let withZod: string;
  beforeAll(async () => {
    withZod = mkdtempSync(path.join(tmpdir(), 'releases-consumer-zod-'));
    const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'))!;
    writeFileSync(path.join(withZod, 'package.json'), JSON.stringify({ name: 'consumer-zod', private: true }));
    const zod = path.dirname(require.resolve('zod/package.json'));
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', path.join(project, tarball), zod],
      { cwd: withZod },
    );
  });
  afterAll(() => rmSync(withZod, { recursive: true, force: true }));

  it.each([
    [
      'esm.mjs',
      `import { ReleasesError, ResponseValidationError as FromMain } from '@releases/client';
import { ResponseValidationError, validateResponses } from '@releases/client/validation';`,
    ],
    [
      'cjs.cjs',
      `const { ReleasesError, ResponseValidationError: FromMain } = require('@releases/client');
const { ResponseValidationError, validateResponses } = require('@releases/client/validation');`,
    ],
  ])('%s: the validation error is a ReleasesError of the main entry', async (file, imports) => {
    writeFileSync(
      path.join(withZod, file),
      `${imports}
let error;
try { validateResponses('health.check', 'NOT OK'); } catch (e) { error = e; }
console.log(JSON.stringify({
  family: error instanceof ReleasesError,
  sameClass: ResponseValidationError === FromMain,
  name: error && error.name,
}));`,
    );
    const { stdout } = await run(process.execPath, [file], { cwd: withZod });
    expect(JSON.parse(stdout)).toEqual({ family: true, sameClass: true, name: 'ResponseValidationError' });
  });
});

describe('the validation entry with either major of its optional peer, zod 3 and zod 4 (issue 19)', () => {
  // Each is this workspace's copy from the lockfile: zod 3 (the catalog's) and zod 4 (the zod4 alias).
  const zods = [
    ['zod 3', path.dirname(require.resolve('zod/package.json'))],
    ['zod 4', path.dirname(require.resolve('zod4/package.json'))],
  ] as const;
  const script = `import { ReleasesError } from '@releases/client';
import { validateResponses } from '@releases/client/validation';
const release = {
  id: 'rel_1', title: 'Melt', artist: 'ryo', release_date: '2007-12-07', release_type: 'single',
  vocaloid_banks: ['Hatsune Miku'], genres: ['pop'], languages: ['ja'], track_count: 1, cover_url: null,
  links: [], created_at: '2026-11-22T08:00:00.000Z', updated_at: '2026-11-22T08:00:00.000Z',
};
const check = (operation, body) => {
  try { validateResponses(operation, body); return 'ok'; }
  catch (error) { return error instanceof ReleasesError ? error.name + ': ' + error.message : 'not a ReleasesError: ' + error; }
};
console.log(JSON.stringify({
  zod: (await import('zod/package.json', { with: { type: 'json' } })).default.version,
  list: check('releases.list', { success: true, data: { releases: [release], pagination: '', generated_at: '2026-11-22T08:00:00.000Z' } }),
  newerField: check('releases.get', { success: true, data: { ...release, bpm: 120 } }),
  health: check('health.check', 'OK'),
  badType: check('releases.get', { success: true, data: { ...release, track_count: 'one' } }),
  badLiteral: check('health.check', 'NOT OK'),
}));`;

  it.each(zods)('%s: installed first, then the SDK, with npm (no ERESOLVE); it checks bodies', async (_name, zod) => {
    const folder = mkdtempSync(path.join(tmpdir(), 'releases-consumer-zod-major-'));
    try {
      writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'zod-major', private: true }));
      const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'))!;
      const npm = ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'];
      await run('npm', [...npm, zod], { cwd: folder });
      // Strict peer resolution, as npm does by default: a peer range without zod 4 fails here with ERESOLVE.
      await run('npm', [...npm, '--strict-peer-deps', path.join(project, tarball)], { cwd: folder });
      writeFileSync(path.join(folder, 'check.mjs'), script);
      const { stdout } = await run(process.execPath, ['check.mjs'], { cwd: folder });
      const result = JSON.parse(stdout) as Record<string, string>;
      expect(result.zod).toMatch(_name === 'zod 3' ? /^3\.2[5-9]\./ : /^4\./);
      expect(result).toMatchObject({ list: 'ok', newerField: 'ok', health: 'ok' });
      expect(result.badType).toMatch(/^ResponseValidationError: The releases.get response .*data\.track_count/);
      expect(result.badLiteral).toMatch(/^ResponseValidationError: The health.check response/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('declares zod as an optional peer of both majors', () => {
    const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(manifest.peerDependencies.zod).toBe('^3.25.0 || ^4.0.0');
    expect(manifest.peerDependenciesMeta.zod).toEqual({ optional: true });
  });
});

describe('the README (issue 8 #10)', () => {
  it('every ts block compiles against the packed package under strict, exactOptionalPropertyTypes', async () => {
    const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    const files = blocks.map((block, index) => {
      const file = `readme-${index + 1}.mts`;
      writeFileSync(path.join(project, file), block);
      return file;
    });
    writeFileSync(
      path.join(project, 'tsconfig.readme.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom', 'dom.iterable'],
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          // A Node project has @types/node; the stranger's project here borrows this package's copy.
          typeRoots: [path.join(packageRoot, 'node_modules/@types')],
          types: ['node'],
        },
        files,
      }),
    );
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.readme.json'], { cwd: project }).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
  });
});

describe('publishing (issue 8 #27)', () => {
  const manifest = () =>
    JSON.parse(readFileSync(path.join(project, 'node_modules/@releases/client/package.json'), 'utf8')) as Record<
      string,
      unknown
    >;

  it('the packed manifest has what npm shows, and no workspace dependency', () => {
    const packed = manifest();
    expect(packed).toMatchObject({
      name: '@releases/client',
      license: 'MIT',
      repository: { type: 'git', directory: 'packages/client' },
      publishConfig: { access: 'public' },
    });
    expect((packed.repository as { url: string }).url).toMatch(/^git\+https:\/\//);
    expect(packed.homepage).toMatch(/^https:\/\//);
    expect((packed.bugs as { url: string }).url).toMatch(/^https:\/\//);
    expect(packed.keywords).toEqual(expect.arrayContaining(['sdk', 'vocaloid']));
    expect(JSON.stringify(packed)).not.toContain('workspace:');
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      expect(Object.keys((packed[field] as Record<string, string> | undefined) ?? {})).not.toContain(
        '@releases/contract',
      );
    }
  });

  it('pnpm publish --dry-run would publish the built package and nothing else', async () => {
    const { stdout, stderr } = await run('pnpm', ['publish', '--dry-run', '--no-git-checks'], {
      cwd: packageRoot,
    });
    const output = `${stdout}\n${stderr}`;
    expect(output).toMatch(/\+ @releases\/client@\d+\.\d+\.\d+/);
    const files = [...output.matchAll(/npm notice [\d.]+k?B (\S+)/g)].map((match) => match[1]!);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.cjs']));
    expect(
      files.filter(
        (file) => !/^(dist\/|validation\/package\.json$|README\.md$|package\.json$|LICENSE$|CHANGELOG\.md$)/.test(file),
      ),
    ).toEqual([]);
  });

  it('a root release script builds, tests and publishes the SDK alone, versioned by Changesets', () => {
    const root = path.resolve(packageRoot, '../..');
    const scripts = (
      JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.release).toMatch(
      /^turbo run build test --filter=@releases\/client && pnpm --filter @releases\/client publish/,
    );
    // `changeset publish` would publish every public package, the bundled-in contract included.
    expect(scripts.release).not.toMatch(/changeset publish/);
    const config = JSON.parse(readFileSync(path.join(root, '.changeset/config.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({ access: 'public', baseBranch: 'main' });
    const changesets = readdirSync(path.join(root, '.changeset')).filter(
      (name) => name.endsWith('.md') && name !== 'README.md',
    );
    const mentions = changesets.map((name) => readFileSync(path.join(root, '.changeset', name), 'utf8'));
    expect(mentions.some((text) => /^---\n['"]@releases\/client['"]: (patch|minor|major)\n---/m.test(text))).toBe(true);
  });
});

describe('package quality', () => {
  it('publint (strict) and are-the-types-wrong find no problem', async () => {
    // The CLIs as this package's scripts run them (neither exports its CLI module).
    const bin = (name: string) => path.join(packageRoot, 'node_modules', '.bin', name);
    await expect(run(bin('publint'), ['--strict'], { cwd: packageRoot })).resolves.toBeDefined();
    const { stdout } = await run(bin('attw'), ['--pack', '.', '--format', 'table-flipped'], { cwd: packageRoot });
    expect(stdout).toContain('No problems found');
  });
});
