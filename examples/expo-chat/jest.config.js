/**
 * Two kinds of test: the app itself under jest-expo, driven like a user against a live Gatehouse
 * server (react-native/test/global-setup.mjs starts one on a fresh SQLite file), and the release
 * bundle (Metro, then Hermes) in plain Node.
 */
module.exports = {
  testTimeout: 300000,
  projects: [
    {
      displayName: 'app',
      preset: 'jest-expo',
      testMatch: ['<rootDir>/test/**/*.test.tsx'],
      setupFilesAfterEnv: ['<rootDir>/../../react-native/test/setup.ts'],
      globalSetup: '<rootDir>/../../react-native/test/global-setup.mjs',
      globalTeardown: '<rootDir>/../../react-native/test/global-teardown.mjs',
    },
    { displayName: 'bundle', testEnvironment: 'node', testMatch: ['<rootDir>/test/**/*.test.js'] },
  ],
};
