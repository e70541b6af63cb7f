/**
 * One jest configuration, four projects:
 *   unit          — `*.spec.ts` beside the code they test (fast; may still start a real nats-server)
 *   e2e           — `test/**\/*.e2e-spec.ts`, whole apps against the sandbox venue and a real nats-server
 *   e2e-alternate — the connector's and the order suites again against the sandbox's alternate dialect
 *   cluster       — `test/cluster/` and the test kit's cluster spec, on a three-node JetStream cluster (run
 *                   after the others, alone)
 * ts-jest only transpiles (isolatedModules); `npm run typecheck` is the type check.
 */
const moduleNameMapper = {
  '^#venue-api$': '<rootDir>/libs/venue-api/src/index.ts',
  '^#contracts$': '<rootDir>/libs/contracts/src/index.ts',
  '^#bus$': '<rootDir>/libs/bus/src/index.ts',
  '^#observability$': '<rootDir>/libs/observability/src/index.ts',
  '^#testing$': '<rootDir>/libs/testing/src/index.ts',
  '^#actors$': '<rootDir>/libs/actors/src/index.ts',
  '^#client$': '<rootDir>/libs/client/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

/** The test kit's three-node cluster spec: a cluster too, so it runs in the cluster project, not with the units. */
const CLUSTER_SPEC = 'libs/testing/src/nats-cluster.spec.ts';

const shared = {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper,
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }],
  },
  setupFiles: ['reflect-metadata'],
};

export default {
  // Per-project testTimeout is not honoured by jest 30; one global bound for suites on real sockets.
  testTimeout: 30_000,
  // Most suites wait on sockets, timers and child processes, not the CPU: on a 2-core machine jest's default
  // (cores − 1 = one worker) runs them one after another. Two workers keep both cores busy without starving
  // the three-node cluster suites, whose leader elections need CPU in time.
  maxWorkers: 2,
  // A worker's heap grows suite after suite (each suite's module graph under --experimental-vm-modules); one seen
  // at 2.8 GB served a 100 000-trade sandbox in its GC's time, and the suite timed out. Past 1 GB it is started anew.
  workerIdleMemoryLimit: '1GB',
  // A worker ends when its event loop is empty. Near that heap, on a loaded machine, its teardown took 1–2.5 s: past
  // jest's 500 ms it was killed and "failed to exit gracefully" printed with nothing left open (the subscribe-flood
  // suite: only jest's own timers and stdio pipes after afterAll). A handle really left open holds it for ever still.
  workerGracefulExitTimeout: 5_000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/tools/**/*.spec.ts'],
      // the three-node cluster's own spec runs with the cluster suites (alone, after the others)
      testPathIgnorePatterns: ['/node_modules/', CLUSTER_SPEC],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/'],
      setupFilesAfterEnv: ['<rootDir>/test/kit/retry-once.ts'],
      // dist/ for the suites that run an app as a child process (test/kit/app-process.ts)
      globalSetup: '<rootDir>/test/kit/build-dist.ts',
    },
    {
      // The whole gateway and the connector on a three-node JetStream cluster, a node killed while orders flow.
      // Run by `npm test` after the other projects, alone on the machine: leader elections starved of CPU by
      // other suites stall past any sensible wait (seen in CI as streams without a leader for over a minute).
      ...shared,
      displayName: 'cluster',
      testMatch: ['<rootDir>/test/cluster/**/*.e2e-spec.ts', `<rootDir>/${CLUSTER_SPEC}`],
      setupFilesAfterEnv: ['<rootDir>/test/kit/retry-cluster.ts'],
      globalSetup: '<rootDir>/test/kit/build-dist.ts',
    },
    {
      // The connector's end-to-end suites and the execution order suite again, against the sandbox's alternate
      // dialect (test/kit/e2e-venue.ts).
      ...shared,
      displayName: 'e2e-alternate',
      testMatch: ['<rootDir>/test/connector/**/*.e2e-spec.ts', '<rootDir>/test/execution/orders.e2e-spec.ts'],
      setupFiles: [...shared.setupFiles, '<rootDir>/test/kit/alternate-dialect.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/kit/retry-once.ts'],
      globalSetup: '<rootDir>/test/kit/build-dist.ts',
    },
  ],
};
