import { describe, expect, it } from 'vitest';
import { DASHBOARD_ROUTES } from '../../server/src/http/dashboard.ts';
import { ROUTES } from '../src/routes.ts';

/** The server answers index.html only at its list of client routes: the two lists must agree. */
describe('client routes', () => {
  const served = (path: string) => DASHBOARD_ROUTES.some((r) => r === path || (r.endsWith('/*') && path.startsWith(r.slice(0, -1))));

  it('every page of the dashboard is served by the server', () => {
    expect(ROUTES.map((r) => r.path).filter((p) => !served(p))).toEqual([]);
  });

  it('the server serves index.html nowhere the dashboard has no page', () => {
    const pages = new Set(ROUTES.map((r) => r.path));
    expect(DASHBOARD_ROUTES.filter((r) => !r.endsWith('/*') && !pages.has(r))).toEqual([]);
  });
});
