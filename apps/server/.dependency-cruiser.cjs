// The server's layers (apps/server/README.md draws them): each folder imports only the folders below it, and
// the folders of one rung never import each other. `pnpm lint` fails on a back arrow or a cycle.
/** Lowest first. */
const rungs = [
  ['kernel'],
  ['config'],
  ['metrics'],
  ['catalogue'],
  ['search'],
  ['db'],
  ['keys', 'rate-limit', 'mail'],
  ['auth'],
  ['openapi'],
  ['http'],
  ['routes'],
  ['composition'],
  ['cli'],
];

/** The path of a layer's modules, relative to the package. */
function pathOf(layer) {
  if (layer === 'config') return '^src/config\\.ts$';
  // The composition root: every file at the top of src/ but the configuration.
  if (layer === 'composition') return '^src/(?!config\\.ts$)[^/]+\\.ts$';
  return `^src/${layer}/`;
}

const above = (index) =>
  rungs
    .slice(index + 1)
    .flat()
    .map(pathOf);

const layerRules = rungs.flatMap((rung, index) => [
  ...(index === rungs.length - 1
    ? []
    : [
        {
          name: `below-${rung.join('-')}`,
          comment: `${rung.join(', ')} must not import a layer above it (apps/server/README.md, "Layers").`,
          severity: 'error',
          from: { path: rung.map(pathOf).join('|'), pathNot: '\\.test\\.ts$' },
          to: { path: above(index).join('|') },
        },
      ]),
  ...rung
    .filter(() => rung.length > 1)
    .map((layer) => ({
      name: `beside-${layer}`,
      comment: `${layer} must not import the other folders of its rung (${rung.join(', ')}).`,
      severity: 'error',
      from: { path: pathOf(layer), pathNot: '\\.test\\.ts$' },
      to: {
        path: rung
          .filter((other) => other !== layer)
          .map(pathOf)
          .join('|'),
      },
    })),
]);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules must not import each other, however indirectly.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'kernel-is-a-leaf',
      comment: 'The kernel (clock, ids, the problem type, the bounded cache, deadlines, logs) imports nothing of ours.',
      severity: 'error',
      from: { path: '^src/kernel/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/(?!kernel/)' },
    },
    ...layerRules,
    {
      name: 'no-tests-in-src-imports',
      comment: 'Production code never imports a test or the test folder.',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: '(\\.test\\.ts$)|(^test/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^dist/)|(node_modules)' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
