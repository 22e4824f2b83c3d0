import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { clientOf } from '../../kernel/client-info.js';
import { fieldError } from '../../kernel/errors.js';
import { requireAccount } from '../users/request-account.js';
import { requireAuth } from '../../http/caller.js';
import { problemResponses } from '../../http/schemas.js';
import { ConfirmTotpBody, DisableTotpBody, EnrolTotpBody, MfaVerifyBody, ProofBody, proofOf, RecoveryCodes, StepUp, TotpEnrolment } from './mfa.schemas.js';
import type { MfaService } from './mfa.service.js';

interface Deps {
  mfa: MfaService;
}

/** Second factors: TOTP and recovery codes in settings, step-up, and the second half of a login. */
export const mfaRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { mfa }) => {
  const tags = ['Second factors'];
  const config = { auth: 'session' as const, budget: 'exempt' as const };

  app.get('/users/me/mfa', {
    config,
    schema: { tags, operationId: 'getMfa', summary: "The account's second factors", response: { 200: Type.Ref('MfaStatus') } },
  }, async (request) => {
    const auth = requireAuth(request);
    return mfa.status(auth.userId, auth.sessionId!);
  });

  app.post('/users/me/mfa/totp', {
    // No factor is on while enrolling (409 once it is): nothing to step up with; the password guards the start.
    config: { ...config, stepUp: 'never', guests: 'refused' }, // a guest has no address to hold a factor for: it upgrades first
    schema: {
      tags, operationId: 'enrolTotp', summary: 'Start TOTP enrolment: a secret to scan',
      description: 'Needs the password. The factor is off until POST /v1/users/me/mfa/totp/confirm receives a first code. Starting again replaces an unconfirmed secret; 409 while TOTP is on.',
      body: EnrolTotpBody, response: { 200: TotpEnrolment, ...problemResponses([400, 403, 409, 413, 415, 429]) },
    },
  }, async (request) => mfa.enrolTotp(requireAccount(request), requireAuth(request).sessionId!, request.body.password));

  app.post('/users/me/mfa/totp/confirm', {
    config: { ...config, stepUp: 'never' },
    schema: {
      tags, operationId: 'confirmTotp', summary: 'Turn TOTP on with a first code; returns the recovery codes',
      body: ConfirmTotpBody, response: { 200: RecoveryCodes, ...problemResponses([400, 409, 413, 415]) },
    },
  }, async (request) => {
    const auth = requireAuth(request);
    return mfa.confirmTotp(requireAccount(request), auth.sessionId!, request.body.code, clientOf(request));
  });

  app.delete('/users/me/mfa/totp', {
    // The body proves the factor (a code), or the service asks for a recent step-up with the password.
    config: { ...config, stepUp: 'never' },
    schema: {
      tags, operationId: 'disableTotp', summary: 'Turn TOTP off (and drop the recovery codes)',
      description: 'Needs a current `code` or a `recovery_code`; or the `password`, if this session proved its factor within MFA_STEP_UP_SECONDS (otherwise 403 mfa_required).',
      body: DisableTotpBody, response: { 204: Type.Null({ description: 'Turned off' }), ...problemResponses([400, 403, 404, 413, 415, 429]) },
    },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    const { password, ...codes } = request.body;
    if (password !== undefined && (codes.code !== undefined || codes.recovery_code !== undefined)) {
      throw fieldError('/password', 'one_of', 'Send a code or the password, not both.');
    }
    await mfa.disableTotp(requireAccount(request), auth.sessionId!, clientOf(request), password !== undefined ? { password } : { proof: proofOf(codes) });
    return reply.code(204).send(null);
  });

  app.post('/users/me/mfa/recovery-codes', {
    config: { ...config, stepUp: 'always' },
    schema: {
      tags, operationId: 'regenerateRecoveryCodes', summary: 'Replace the recovery codes with ten new ones',
      response: { 200: RecoveryCodes, ...problemResponses([409]) },
    },
  }, async (request) => mfa.regenerateRecoveryCodes(requireAccount(request), clientOf(request)));

  app.post('/users/me/mfa/step-up', {
    config: { ...config, stepUp: 'never' }, // it is the proof
    schema: {
      tags, operationId: 'stepUp', summary: 'Prove the second factor in this session, for sensitive changes',
      description: 'Creating an API key, changing the password, new recovery codes and turning TOTP off with the password answer 403 mfa_required unless the session proved its factor within MFA_STEP_UP_SECONDS.',
      body: ProofBody, response: { 200: StepUp, ...problemResponses([400, 409, 413, 415, 429]) },
    },
  }, async (request) => {
    const auth = requireAuth(request);
    return mfa.stepUp(requireAccount(request), auth.sessionId!, proofOf(request.body), clientOf(request));
  });

  app.post('/auth/mfa/verify', {
    config: { publicLimit: 'login' },
    schema: {
      tags: ['Auth'], operationId: 'verifyMfa', summary: 'Finish a login with the second factor',
      description: 'After POST /v1/auth/login answered 403 mfa_required: its `mfa_token` (valid 5 minutes, used once) and a `code` or `recovery_code`. Wrong codes count against the account like wrong passwords.',
      body: MfaVerifyBody, response: { 200: Type.Ref('TokenResponse'), ...problemResponses([400, 401, 403, 413, 415, 429]) },
    },
  }, async (request) => {
    const { mfa_token: token, ...codes } = request.body;
    return mfa.completeLogin(token, proofOf(codes), clientOf(request));
  });
};
