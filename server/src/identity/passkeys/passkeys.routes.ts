import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Type } from 'typebox';
import { clientOf } from '../../kernel/client-info.js';
import { requireAccount } from '../users/request-account.js';
import { requireAuth } from '../../http/caller.js';
import { problemResponses } from '../../http/schemas.js';
import { AddPasskeyBody, CeremonyOptions, PasskeyLoginBody, PasskeyOptionsBody, RenamePasskeyBody } from './passkeys.schemas.js';
import type { PasskeysService } from './passkeys.service.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** Passkeys in settings (add, list, rename, remove) and the passwordless login with one. */
export const passkeysRoutes: FastifyPluginAsyncTypebox<{ passkeys: PasskeysService }> = async (app, { passkeys }) => {
  const tags = ['Passkeys'];
  const config = { auth: 'session' as const, budget: 'exempt' as const };

  app.post('/users/me/passkeys/options', {
    // A passkey signs in by itself: adding one is as sensitive as a new password.
    config: { ...config, stepUp: 'always' },
    schema: {
      tags, operationId: 'passkeyRegistrationOptions', summary: 'Start adding a passkey: options for navigator.credentials.create()',
      description: 'Needs the password, and on an account with TOTP a factor proved within MFA_STEP_UP_SECONDS.',
      body: PasskeyOptionsBody, response: { 200: CeremonyOptions, ...problemResponses([400, 413, 415, 422, 429]) },
    },
  }, async (request) => passkeys.registrationOptions(requireAccount(request), requireAuth(request).sessionId!, request.body.password));

  app.post('/users/me/passkeys', {
    config: { ...config, stepUp: 'always', locationHeader: true }, // the finish of what the options step began: the window may have closed between
    schema: {
      tags, operationId: 'addPasskey', summary: "Finish adding a passkey with the authenticator's answer",
      body: AddPasskeyBody, response: { 201: Type.Ref('Passkey'), ...problemResponses([400, 409, 413, 415, 422]) },
    },
  }, async (request, reply) => {
    const body = request.body;
    const created = await passkeys.register(requireAccount(request), { ...body, credential: body.credential as unknown as RegistrationResponseJSON }, clientOf(request));
    return reply.code(201).header('Location', `/v1/users/me/passkeys/${created.id}`).send(created);
  });

  app.get('/users/me/passkeys', {
    config,
    schema: {
      tags, operationId: 'listPasskeys', summary: "The account's passkeys, newest first",
      response: { 200: Type.Object({ data: Type.Array(Type.Ref('Passkey')), next_cursor: Type.Null({ description: 'Always null: an account holds at most 20' }) }, { additionalProperties: false }) },
    },
  }, async (request) => ({ data: await passkeys.list(requireAuth(request).userId), next_cursor: null }));

  app.patch('/users/me/passkeys/:id', {
    config: { ...config, stepUp: 'never' },
    schema: {
      tags, operationId: 'renamePasskey', summary: 'Rename a passkey',
      params: IdParams, body: RenamePasskeyBody, response: { 200: Type.Ref('Passkey'), ...problemResponses([400, 404, 413, 415]) },
    },
  }, async (request) => passkeys.rename(requireAuth(request).userId, request.params.id, request.body.name));

  app.delete('/users/me/passkeys/:id', {
    config: { ...config, stepUp: 'always' },
    schema: {
      tags, operationId: 'removePasskey', summary: 'Remove a passkey', params: IdParams,
      response: { 204: Type.Null({ description: 'Removed' }), ...problemResponses([404]) },
    },
  }, async (request, reply) => {
    await passkeys.remove(requireAccount(request), request.params.id, clientOf(request));
    return reply.code(204).send(null);
  });

  app.post('/auth/passkey/options', {
    config: { publicLimit: 'login' },
    schema: {
      tags: ['Auth'], operationId: 'passkeyLoginOptions', summary: 'Start a passwordless login: options for navigator.credentials.get()',
      response: { 200: CeremonyOptions, ...problemResponses([429]) },
    },
  }, async () => passkeys.loginOptions());

  app.post('/auth/passkey/verify', {
    config: { publicLimit: 'login' },
    schema: {
      tags: ['Auth'], operationId: 'passkeyLogin', summary: "Finish a passwordless login with the authenticator's signature",
      description: 'Any refusal (unknown passkey, wrong signature, spent or expired challenge) is the same 401. Access tokens of such a session carry amr ["webauthn"].',
      body: PasskeyLoginBody, response: { 200: Type.Ref('TokenResponse'), ...problemResponses([400, 401, 403, 413, 415, 429]) },
    },
  }, async (request) => passkeys.login({ ...request.body, credential: request.body.credential as unknown as AuthenticationResponseJSON }, clientOf(request)));
};
