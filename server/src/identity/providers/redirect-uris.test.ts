import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { redirectUriChecker } from './redirect-uris.js';

describe('redirectUriChecker', () => {
  it('allows redirects under APP_LINK_URL however the variable spells its scheme, host and port', () => {
    for (const appLink of ['myapp://auth', 'myApp://auth/', 'MYAPP://auth']) {
      expect(redirectUriChecker(loadConfig({ APP_LINK_URL: appLink }))('myapp://auth/oidc'), appLink).toBe(true);
    }
    for (const appLink of ['https://app.example.com/auth', 'https://App.Example.com:443/auth']) {
      const allowed = redirectUriChecker(loadConfig({ APP_LINK_URL: appLink }));
      expect(allowed('https://app.example.com/auth/oidc'), appLink).toBe(true);
      expect(allowed('https://app.example.com/other'), appLink).toBe(false);
    }
  });
});
