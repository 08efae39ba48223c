/** Jest with the SWC transform: type-checking is `npm run typecheck`'s job, not the test runner's. */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  testTimeout: 60_000,
  // The default reporter, then one plain closing line that CI tooling can count tests from.
  reporters: ['default', '<rootDir>/scripts/closing-line-reporter.js'],
};
