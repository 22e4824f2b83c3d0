/**
 * The hooks under jest-expo (React Native's Jest preset with Expo's module mocks), against a live
 * Gatehouse server that test/global-setup.mjs starts (real HTTP, a fresh SQLite file).
 */
module.exports = {
  preset: 'jest-expo',
  testMatch: ['<rootDir>/test/**/*.test.ts?(x)'],
  // Sources import './x.js' (NodeNext style, as the build needs): map them to the .ts files.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
  testTimeout: 30000,
};
