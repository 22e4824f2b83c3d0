import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth, requireOrganization } from '../../http/caller.js';
import { problemResponses } from '../../http/schemas.js';
import { clientOf } from '../../kernel/client-info.js';
import { presentMe } from '../users/users.presenter.js';
import type { Guests } from './guests.service.js';
import { UpgradeGuestBody } from './guests.schemas.js';

/** Guest accounts (ANONYMOUS_SIGN_IN): one-click sign-in, and the upgrade to an ordinary account. */
export const guestsRoutes: FastifyPluginAsyncTypebox<{ guests: Guests }> = async (app, { guests }) => {
  app.post('/auth/anonymous', {
    config: { publicLimit: 'anonymous' },
    // The body is optional: a request without one is read as `{}`.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    schema: {
      tags: ['Auth'], operationId: 'signInAnonymously', summary: 'Sign in as a new guest (ANONYMOUS_SIGN_IN)',
      description: 'Makes a guest account (no address; `is_anonymous: true` in GET /v1/users/me) with its personal organization on the free tier, and answers its tokens like a login (`amr` `anonymous`). '
        + 'A guest uses the platform but cannot create API keys, organizations, OAuth apps or webhooks, nor add a way in (403 `guest_not_allowed`) until it upgrades (POST /v1/users/me/upgrade). '
        + 'Guests unused for GUEST_RETENTION_DAYS are deleted with their data. 404 when ANONYMOUS_SIGN_IN is off; at most 30 guests per IP an hour (429 `too_many_attempts`).',
      body: Type.Object({}, { additionalProperties: false }),
      response: { 200: Type.Ref('TokenResponse'), ...problemResponses([400, 404, 413, 415, 429]) },
    },
  }, async (request) => guests.signIn(clientOf(request)));

  app.post('/users/me/upgrade', {
    // It adds ways in (an address, a password), as a route that grants power; a guest has no
    // second factor, so the step-up asks nothing of it. The route is the guest's own way out.
    config: { auth: 'session', budget: 'exempt', stepUp: 'always', guests: 'allowed' },
    schema: {
      tags: ['Account'], operationId: 'upgradeGuest', summary: 'Make a guest an ordinary account, keeping its id and data',
      description: 'The address is confirmed by mail, as after a registration; `password` (optional) lets it sign in with one, else by an email code, a provider or a passkey. '
        + '409 `email_taken` when the address has an account; 409 `conflict` when the caller is no guest; at most 30 failed upgrades per IP an hour (429 `too_many_attempts`).',
      body: UpgradeGuestBody,
      response: { 200: Type.Ref('Me'), ...problemResponses([400, 409, 413, 415]) },
    },
  }, async (request) => presentMe(await guests.upgrade(requireAuth(request).userId, request.body, clientOf(request)), requireOrganization(request)));
};
