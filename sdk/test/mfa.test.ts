/**
 * Second factors through the SDK against a live server: enrol TOTP, a login that needs the
 * factor, finishing it, step-up, and OpenID discovery. Codes come from an independent TOTP
 * library reading the server's otpauth:// URL.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, isGatehouseError, mfaChallengeOf } from '../src/index.js';
import { rejection, signUp } from './helpers.js';
import { startLiveServer, type LiveServer } from './live-server.js';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server?.stop());

describe('second factors', () => {
  it('enrols TOTP, finishes a login with verifyMfa, steps up and turns it off', async () => {
    const { gh, email, password } = await signUp(server);
    const enrolment = await gh.me.mfa.enrolTotp({ password });
    expect(enrolment.qr_svg).toContain('<svg');
    const totp = OTPAuth.URI.parse(enrolment.otpauth_url) as OTPAuth.TOTP;
    const { recovery_codes: codes } = await gh.me.mfa.confirmTotp({ code: totp.generate() });
    expect(codes).toHaveLength(10);
    expect((await gh.me.mfa.get()).totp.status).toBe('enabled');

    const phone = createGatehouse({ baseUrl: server.base });
    const error = await rejection(phone.auth.login({ username: email, password }));
    expect(isGatehouseError(error, 'mfa_required')).toBe(true);
    const challenge = mfaChallengeOf(error);
    expect(challenge).toMatchObject({ methods: ['totp', 'recovery_code'], expiresIn: 300 });
    expect(mfaChallengeOf(new Error('other'))).toBeNull();
    const tokens = await phone.auth.verifyMfa({ mfa_token: challenge!.mfaToken, recovery_code: codes[0]! });
    expect((await phone.session.get())?.accessToken).toBe(tokens.access_token);
    expect((await phone.me.get()).email).toBe(email);

    const stepped = await phone.me.mfa.stepUp({ recovery_code: codes[1]! });
    expect(Date.parse(stepped.step_up_expires_at)).toBeGreaterThan(Date.now());
    expect((await phone.me.mfa.regenerateRecoveryCodes()).recovery_codes).toHaveLength(10);
    await phone.me.mfa.disableTotp({ password });
    expect((await phone.me.mfa.get()).totp.status).toBe('disabled');
  });

  it('reads the OpenID discovery document', async () => {
    const gh = createGatehouse({ baseUrl: server.base });
    const discovery = await gh.system.openIdConfiguration();
    expect(discovery.jwks_uri).toBe(`${discovery.issuer}/.well-known/jwks.json`);
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['EdDSA']);
  });
});
