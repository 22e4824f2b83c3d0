// The issue's goals, one line each, in the order the final table prints them; a part that measures
// one adds an entry with the same id (lib/parts/routes.js, lib/parts/throughput.js). A goal no part
// measured in this run is printed as such, with the options that measure it.
import { ACCOUNT_ROUTES, READ_ROUTES, ROUTE_GOALS, ROUTE_LABELS, WRITE_ROUTES } from './parts/routes.js';
import { MODE_NAMES, PEER_CPU_GOAL, PEER_PAIRS } from './parts/throughput.js';

const routes = (mode) => `--parts routes --modes ${mode}`;

export const ISSUE_GOALS = [
  ...['embedded', 'redis'].flatMap((mode) => READ_ROUTES.map((route) => ({
    id: `cpu:${mode}:${route}`, what: `${MODE_NAMES[mode]} ${ROUTE_LABELS[route]}: server CPU ÷ its ceiling's`, goal: `≤ ${ROUTE_GOALS.cpu.read[mode]}×`, needs: routes(mode),
  }))),
  ...[...WRITE_ROUTES, 'mixed'].map((route) => ({
    id: `cpu:embedded:${route}`, what: `embedded ${ROUTE_LABELS[route]}: server CPU ÷ its ceiling's`, goal: `≤ ${ROUTE_GOALS.cpu[route === 'mixed' ? 'mixed' : 'write'].embedded}×`, needs: routes('embedded'),
  })),
  ...WRITE_ROUTES.flatMap((route) => [
    { id: `trips:redis:${route}`, what: `PG + Redis ${ROUTE_LABELS[route]}: round trips (PostgreSQL + Redis) on the critical path`, goal: `≤ ${ROUTE_GOALS.roundTrips}`, needs: routes('redis') },
    { id: `cpu:redis:${route}`, what: `PG + Redis ${ROUTE_LABELS[route]}: server CPU ÷ its ceiling's`, goal: `≤ ${ROUTE_GOALS.cpu.write.redis}×`, needs: routes('redis') },
    { id: `p99:redis:${route}`, what: `PG + Redis ${ROUTE_LABELS[route]}: p99 at a fixed rate ÷ the ceiling's`, goal: `≤ ${ROUTE_GOALS.p99}×`, needs: routes('redis') },
  ]),
  ...['embedded', 'redis'].flatMap((mode) => ACCOUNT_ROUTES.map((route) => ({
    id: `cpu:${mode}:${route}`, what: `${MODE_NAMES[mode]} ${ROUTE_LABELS[route]}: server CPU ÷ the bare Fastify hello-world's`, goal: `≤ ${ROUTE_GOALS.cpu.account[mode]}×`, needs: routes(mode),
  }))),
  ...PEER_PAIRS.filter((p) => p.goal).map((p) => ({
    id: `peer:${p.gatehouse}`, what: `Better Auth ${p.peerWhat}: its CPU per request ÷ Gatehouse's (embedded, ${p.gatehouseWhat})`, goal: `≥ ${PEER_CPU_GOAL}×`, needs: '--parts throughput --modes embedded',
  })),
  ...['embedded', 'redis'].map((mode) => ({
    id: `log:${mode}`, what: `${MODE_NAMES[mode]} the access line (LOG_LEVEL=info, production's default, against warn) on GET /v1/usage: server CPU per request added`, goal: `< ${ROUTE_GOALS.logLineUs} µs`, needs: routes(mode),
  })),
];
