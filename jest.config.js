// The suite runs once per database: always on SQLite, and on PostgreSQL when
// TEST_POSTGRES_URL names a server (CI sets it; see README.md).
const base = {
  // One global context per worker, and Jest's runtime loading the packages
  // once per worker, keeping V8's code cache between the files a worker runs.
  testEnvironment: '<rootDir>/test/support/environment.js',
  runtime: '<rootDir>/test/support/runtime.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // TypeScript, and sanitize-html's HTML parser, which ships only ES modules
  // (Node 20 loads them, Jest on Node 20 does not): to CommonJS.
  transform: { '^.+\\.(ts|js)$': '<rootDir>/test/support/transform.js' },
  transformIgnorePatterns: [
    '/node_modules/(?!(htmlparser2|domhandler|domutils|entities|dom-serializer|domelementtype)/)',
  ],
};

// Files whose subject does not depend on the database (the Markdown renderer,
// linkifier syntax, emoji tables, the docs and their examples and samples, the
// served contract, clients generated from it, the validator cache, the suite's
// own contract check, how a queue's entries are picked from the event log): they run
// once, in the SQLite project.
const databaseIndependent = [
  'markdown',
  'linkifier-syntax',
  'emoji-data',
  'docs-browser',
  'generated-clients',
  'contract-served',
  'curl-samples',
  'examples-replay',
  'validator-cache',
  'contract-check',
  'log-runs',
];

// Files about SQLite alone (its log's checkpoints): they run in the SQLite project only.
const sqliteOnly = ['sqlite-checkpoints'];

const projects = [
  { ...base, displayName: 'sqlite', setupFiles: ['<rootDir>/test/support/use-sqlite.js'] },
];
if (process.env.TEST_POSTGRES_URL) {
  projects.push({
    ...base,
    displayName: 'postgresql',
    setupFiles: ['<rootDir>/test/support/use-postgres.js'],
    testPathIgnorePatterns: [...databaseIndependent, ...sqliteOnly].map(
      (name) => `/test/${name}\\.test\\.ts$`,
    ),
  });
} else {
  process.stderr.write('TEST_POSTGRES_URL is not set: running the suite on SQLite only.\n');
}

// Most of a test's time is spent waiting on a server process or a database,
// so two workers keep both cores busy even on a two-core machine. A worker's
// heap keeps what its files left until V8 collects it: one whose heap is past
// 2 GB after a file is replaced (the new one starts with no code cache), well
// before Node's heap limit of about 4 GB.
module.exports = {
  projects,
  // A bound on each test, not a wait: tests wait for states (test/support/wait.ts),
  // and one that hangs fails after two minutes, long enough for the slowest
  // test on a loaded machine.
  testTimeout: 120_000,
  maxWorkers: 2,
  workerIdleMemoryLimit: '2GB',
  // One migrated template database of each kind for the run, copied by each test file.
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  // Each file's time, by project, for .ci/run's list of the slowest.
  reporters: ['default', '<rootDir>/test/support/timing-reporter.js'],
};
