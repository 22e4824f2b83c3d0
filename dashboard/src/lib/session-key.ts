/**
 * The localStorage key of the dashboard's session (dashboard/README.md explains why localStorage).
 * Its own module, free of browser globals, so the tests can sign a browser in by writing it.
 */
export const TOKEN_STORAGE_KEY = 'gatehouse.dashboard.session';
