/**
 * Import boundaries of pod-doctor, checked by `npm test` (test/unit/import-boundaries.test.ts).
 *
 * Layers: lambdas/core is the pure domain (imports nothing of the project outside itself);
 * lambdas/aws holds the SDK adapters and application services; lambdas/handlers are the composition
 * roots; lib/ is infrastructure (may use lambdas/core for shared names and types, never an adapter or
 * a handler); local/ is the local AWS/Kubernetes runtime used by tests, the demo and the benchmarks.
 *
 * TypeScript 7 has no JavaScript API, so dependency-cruiser parses with swc; tsPreCompilationDeps keeps
 * type-only imports in the graph (a type import across a layer is still a dependency on that layer).
 * @type {import('dependency-cruiser').IConfiguration}
 */
/**
 * The rooms of lambdas/core, lowest first: a room imports only rooms below it (and itself). voices and
 * fleet sit on top, side by side, and do not import each other.
 */
const CORE_ROOMS = ['text', 'contract', 'detect', 'cloudtrail', 'incident', 'policy', 'remedy', 'door', 'workflow'];
const CORE_TOP = ['voices', 'fleet'];

const coreRoomRules = [...CORE_ROOMS, ...CORE_TOP].map((room, i) => {
  const above = CORE_ROOMS.includes(room)
    ? [...CORE_ROOMS.slice(i + 1), ...CORE_TOP]
    : CORE_TOP.filter((other) => other !== room);
  return {
    name: `core-${room}-imports-below`,
    severity: 'error',
    comment: `lambdas/core/${room} imports only the rooms below it (${CORE_ROOMS.join(' < ')} < ${CORE_TOP.join(' | ')}).`,
    from: { path: `^lambdas/core/${room}/` },
    to: { path: `^lambdas/core/(${above.join('|')})/` },
  };
});

/**
 * lambdas/aws: shared rooms under the services. runtime/ (plumbing) < ec2/ (the EC2 wire client) <
 * readers/ (read adapters several services reuse) < ingest/ (the services that open incidents); the
 * services import the shared rooms and never each other.
 */
const AWS_SHARED = ['runtime', 'ec2', 'readers', 'ingest'];
const AWS_SERVICES = ['checks', 'door', 'fleet', 'kubernetes', 'voices', 'workflow'];
const awsRoomRules = [
  ...AWS_SHARED.map((room, i) => ({
    name: `aws-${room}-imports-below`,
    severity: 'error',
    comment: `lambdas/aws/${room} is shared: it imports only the shared rooms below it (${AWS_SHARED.join(' < ')}), never a service.`,
    from: { path: `^lambdas/aws/${room}/` },
    to: { path: `^lambdas/aws/(${[...AWS_SHARED.slice(i + 1), ...AWS_SERVICES].join('|')})/` },
  })),
  {
    name: 'aws-services-import-no-service',
    severity: 'error',
    comment: `A service folder of lambdas/aws (${AWS_SERVICES.join(', ')}) imports the shared rooms (${AWS_SHARED.join(', ')}), never another service: what two services share moves down into a shared room.`,
    from: { path: `^lambdas/aws/(${AWS_SERVICES.join('|')})/` },
    to: { path: `^lambdas/aws/(${AWS_SERVICES.join('|')})/`, pathNot: '^lambdas/aws/$1/' },
  },
];

module.exports = {
  forbidden: [
    ...coreRoomRules,
    ...awsRoomRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules import each other in a circle: move the shared part into a module both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      severity: 'error',
      comment: 'lambdas/core is the pure domain: it imports nothing of the project outside lambdas/core.',
      from: { path: '^lambdas/core/' },
      to: { path: '^(lib|lambdas/(aws|handlers)|local|demo|cli|bin|bench|test|scripts|ssm|examples)/' },
    },
    {
      name: 'lib-imports-no-adapter',
      severity: 'error',
      comment:
        'lib/ is infrastructure: names and types it shares with the functions live in lambdas/core, never in an adapter (lambdas/aws) or a handler.',
      from: { path: '^lib/' },
      to: { path: '^lambdas/(aws|handlers)/' },
    },
    {
      name: 'lambdas-import-no-lib',
      severity: 'error',
      comment: 'Function code never imports the CDK side (lib/): shared names live in lambdas/core.',
      from: { path: '^lambdas/' },
      to: { path: '^lib/' },
    },
    {
      name: 'handlers-are-entry-points',
      severity: 'error',
      comment: 'A handler is a composition root: only tests import it.',
      from: { path: '^(lib|lambdas|local|cli|bin|demo)/' },
      to: { path: '^lambdas/handlers/' },
    },
    {
      name: 'local-only-for-tests-demo-bench',
      severity: 'error',
      comment: 'local/ is the local runtime: only test/, demo/, bench/ and scripts/ (and local/ itself) import it.',
      from: { pathNot: '^(test|demo|bench|local|scripts)/' },
      to: { path: '^local/' },
    },
    {
      name: 'demo-only-from-demo-entries',
      severity: 'error',
      comment:
        "demo/ runs on local/: only tests, bench and the CLI's demo entries (demo, replay, mcp --demo) import it, and those load it lazily.",
      from: { pathNot: '^(test|demo|bench)/|^cli/(demo|replay|mcp)-command\\.ts$' },
      to: { path: '^demo/' },
    },
    {
      name: 'production-imports-no-test',
      severity: 'error',
      comment: 'Shipped code (lib, lambdas, cli, bin, ssm) never imports test/.',
      from: { path: '^(lib|lambdas|cli|bin|ssm)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|cdk\\.out)/' },
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
