/**
 * Second factors through the SDK against a live server: enrol TOTP, a login that needs the
 * factor, finishing it, step-up, passkeys (with a software authenticator), and OpenID discovery. Codes come from an independent TOTP
 * library reading the server's otpauth:// URL.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, isGatehouseError, mfaChallengeOf } from '../src/index.js';
import { confirmEmail, rejection, signUp } from './helpers.js';
import { SoftAuthenticator } from '../../server/test/soft-authenticator.js';
import { startLiveServer, type LiveServer } from './live-server.js';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer({ LOG_LEVEL: 'info' }); // mails (the confirmation link) are logged at info
});
afterAll(() => server?.stop());

describe('second factors', () => {
  it('enrols TOTP, finishes a login with verifyMfa, steps up and turns it off', async () => {
    const signedIn = await signUp(server);
    await confirmEmail(server, signedIn);
    const { gh, email, password } = signedIn;
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

  it('adds a passkey (software authenticator), signs in with it alone, renames and removes it', async () => {
    const signedIn = await signUp(server);
    await confirmEmail(server, signedIn);
    const { gh, password } = signedIn;
    const authenticator = new SoftAuthenticator(server.base);
    const { challenge_id, options } = await gh.me.passkeys.registrationOptions({ password });
    const added = await gh.me.passkeys.add({ challenge_id, credential: authenticator.create(options as never), name: 'Laptop' });
    expect(added.name).toBe('Laptop');

    const phone = createGatehouse({ baseUrl: server.base });
    const login = await phone.auth.passkeyLoginOptions();
    const tokens = await phone.auth.passkeyLogin({ challenge_id: login.challenge_id, credential: authenticator.get(login.options as never) });
    expect((await phone.session.get())?.accessToken).toBe(tokens.access_token);
    expect((await phone.me.passkeys.list()).data.map((p) => p.id)).toEqual([added.id]);
    expect((await phone.me.passkeys.rename(added.id, { name: 'Work laptop' })).name).toBe('Work laptop');
    await phone.me.passkeys.remove(added.id);
    expect((await gh.me.passkeys.list()).data).toEqual([]);
  });

  it('reads the OpenID discovery document', async () => {
    const gh = createGatehouse({ baseUrl: server.base });
    const discovery = await gh.system.openIdConfiguration();
    expect(discovery.jwks_uri).toBe(`${discovery.issuer}/.well-known/jwks.json`);
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['EdDSA']);
  });
});
