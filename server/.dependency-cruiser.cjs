/**
 * The shape of server/src, checked in CI (`npm run check:structure -w server`):
 *   core/     primitives every layer uses (errors, ids, pagination, names, tiers, credentials); imports nothing of ours
 *   infra/    storage, Redis, mail, clocks, outbound HTTP; imports core only
 *   modules/  one folder per capability: routes → service → repository; services and repositories
 *             know nothing of HTTP (only *.routes.ts, *.schemas.ts and *.module.ts may import http/)
 *   http/     the cross-cutting request pipeline; it knows modules only by their types
 *   app.ts, modules.ts (the list app.ts registers), dependencies.ts, main.ts, cli.ts, config.ts: wiring, at the top
 * and no import circle anywhere.
 */
const WIRING = '^src/(app|dependencies|main|cli|config|modules)\\.ts$';
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'An import circle: split the shared part into a module both can import.', from: {}, to: { circular: true } },
    { name: 'core-imports-nothing-of-ours', severity: 'error', from: { path: '^src/core/' }, to: { path: '^src/(?!core/)' } },
    { name: 'infra-imports-core-only', severity: 'error', from: { path: '^src/infra/' }, to: { path: ['^src/(http|modules)/', WIRING] } },
    {
      name: 'services-know-no-http',
      severity: 'error',
      comment: 'Services, repositories and workers take plain values; only routes, schemas and module wiring speak HTTP.',
      from: { path: '^src/modules/', pathNot: '\\.(routes|schemas|module|test)\\.ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'http-knows-modules-by-type',
      severity: 'error',
      comment: 'The pipeline gets what it needs from modules through its dependencies (dependencies.ts), not by importing them.',
      from: { path: '^src/http/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/modules/', dependencyTypesNot: ['type-only'] },
    },
    { name: 'nothing-imports-the-wiring', severity: 'error', from: { path: '^src/(core|infra|http|modules)/' }, to: { path: WIRING, dependencyTypesNot: ['type-only'] } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|node_modules)/' },
  },
};
