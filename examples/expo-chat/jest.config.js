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
      // react-native/test/native-app.ts (the suite's stand-in for Apple's and Google's sheets) imports
      // the server's test browser by its `.js` name, as the package's own suite maps it.
      moduleNameMapper: { '^(.*/server/test/provider-browser)\\.js$': '$1' },
      setupFilesAfterEnv: ['<rootDir>/../../react-native/test/setup.ts'],
      globalSetup: '<rootDir>/../../react-native/test/global-setup.mjs',
      globalTeardown: '<rootDir>/../../react-native/test/global-teardown.mjs',
    },
    { displayName: 'bundle', testEnvironment: 'node', testMatch: ['<rootDir>/test/**/*.test.js'] },
  ],
};
