// Expo's Metro configuration (it finds the npm workspace root by itself), with one guard: a module
// that imports a Node built-in (fs, crypto, node:…) fails the bundle with the importer's name.
// React Native has none of them, so such an import would only fail later, on a phone.
const { getDefaultConfig } = require('expo/metro-config');
const { builtinModules } = require('node:module');

const config = getDefaultConfig(__dirname);
const nodeBuiltins = new Set(builtinModules);

config.resolver.resolveRequest = (context, moduleName, platform) => {
  const bare = moduleName.startsWith('node:') ? moduleName.slice(5) : moduleName.split('/')[0];
  if (moduleName.startsWith('node:') || nodeBuiltins.has(bare)) {
    // A package of that name installed for React Native (the `buffer` or `events` polyfill) is fine.
    let resolution;
    try {
      resolution = moduleName.startsWith('node:') ? null : context.resolveRequest(context, moduleName, platform);
    } catch {
      resolution = null;
    }
    if (!resolution || resolution.type !== 'sourceFile') {
      throw new Error(`${context.originModulePath} imports the Node built-in "${moduleName}", which React Native does not have`);
    }
    return resolution;
  }
  return context.resolveRequest(context, moduleName, platform);
};

module.exports = config;
