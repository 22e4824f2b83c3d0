/**
 * The shape of server/src, checked in CI (`npm run check:structure -w server`); docs/ARCHITECTURE.md
 * draws it. From the bottom up, each layer imports only those below it:
 *   kernel/    what every context speaks and stands on: storage, the event outbox and bus, clock,
 *              ids, errors, limits, mail, outbound HTTP, and the words of access every route
 *              declares (roles, scopes, tiers, the caller); owns no business table. config.ts too.
 *   http/      the Fastify glue: route declarations and their one enforcing step, problems,
 *              schemas, the caller as a route reads it, OpenAPI, the dashboard and metrics
 *   identity/  users, every way to sign in, factors, sessions and tokens, the security log
 *   access/    organizations and roles, API keys, limits and usage, admin, the caller's resolution
 *   platform/  agents, chats and messages, streams, webhooks
 *   flows/     what crosses every context: account export, deletion and purge
 *   app.ts, modules.ts, dependencies.ts, main.ts, cli.ts: the wiring, at the top
 * A context is used from outside only through its index.ts (its facade); no import circle between
 * files, and none between folders.
 */
const CONTEXTS = ['identity', 'access', 'platform', 'flows'];
const WIRING = '^src/(app|dependencies|main|cli|modules)\\.ts$';
const LAYERS = ['kernel', 'http', 'identity', 'access', 'platform', 'flows'];
const layerRules = LAYERS.map((layer, i) => ({
  name: `${layer}-imports-only-below`,
  severity: 'error',
  comment: `${layer}/ imports only the layers below it (see the top of this file).`,
  from: { path: layer === 'kernel' ? ['^src/kernel/', '^src/config\\.ts$'] : `^src/${layer}/`, pathNot: '\\.test\\.ts$' },
  to: { path: [...LAYERS.slice(i + 1).map((above) => `^src/${above}/`), WIRING] },
}));
const facadeRules = CONTEXTS.map((context) => ({
  name: `${context}-only-through-its-facade`,
  severity: 'error',
  comment: `Outside ${context}/, import its index.ts: what it offers the others is there, and nothing else is theirs to reach.`,
  from: { pathNot: [`^src/${context}/`, '\\.test\\.ts$'] },
  to: { path: `^src/${context}/`, pathNot: `^src/${context}/index\\.ts$` },
}));
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'An import circle: split the shared part into a module both can import.', from: {}, to: { circular: true } },
    { name: 'no-folder-circles', severity: 'error', scope: 'folder', comment: 'Two folders that import each other: move what both need below them.', from: {}, to: { circular: true } },
    ...layerRules,
    ...facadeRules,
    {
      name: 'services-know-no-http',
      severity: 'error',
      comment: 'Services, repositories and workers take plain values; only routes, schemas and module wiring speak HTTP.',
      from: { path: `^src/(${CONTEXTS.join('|')})/`, pathNot: '(\\.(routes|schemas|module|test)\\.ts|/index\\.ts|/caller/[^/]+\\.ts)$' },
      to: { path: '^src/http/' },
    },
    { name: 'nothing-imports-the-wiring', severity: 'error', from: { pathNot: WIRING }, to: { path: WIRING, dependencyTypesNot: ['type-only'] } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|node_modules)/' },
  },
};
