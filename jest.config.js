/** Two kinds of tests: pure (no I/O) `*.test.ts` and `*.int.test.ts` against real NATS and MongoDB. */
const shared = {
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  moduleNameMapper: {
    '^@cm/(platform|contracts|testkit)$': '<rootDir>/packages/$1/src',
    '^@campaign-events/client$': '<rootDir>/packages/client/src',
  },
  testEnvironment: 'node',
  // .cache holds tools and, for bench:pipeline, an earlier release checked out: never part of the test run
  modulePathIgnorePatterns: ['<rootDir>/.*/dist(-test)?/', '<rootDir>/.cache/'],
  watchPathIgnorePatterns: ['<rootDir>/.cache/'],
};

module.exports = {
  maxWorkers: 2,
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/jest.summary-reporter.js'],
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/{packages,services}/*/{src,test}/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.int\\.test\\.ts$'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{packages,services}/*/{src,test}/**/*.int.test.ts'],
      globalSetup: '<rootDir>/jest.global-setup.ts',
      globalTeardown: '<rootDir>/jest.global-teardown.ts',
    },
  ],
};
