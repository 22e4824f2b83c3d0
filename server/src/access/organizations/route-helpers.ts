import type { FastifyRequest } from 'fastify';
import { clientOf } from '../../kernel/client-info.js';
import { AppError } from '../../kernel/errors.js';
import { isId, type IdKind } from '../../kernel/ids.js';
import type { Actor } from './organization-deps.js';

export const TAGS = ['Organizations'];
/**
 * Access tokens only, like the other routes that manage an account's own things: a leaked API
 * key cannot invite members or hand itself to someone. Budget-exempt, so a team whose budget a
 * runaway key burned can still remove that member and their keys.
 */
export const CONFIG = { auth: 'session' as const, budget: 'exempt' as const };

/** The caller, as the audit log records them. */
export function actorOf(request: FastifyRequest): Actor {
  const auth = request.auth;
  // Set by the authenticate step on every route these helpers serve (config.auth).
  if (!auth) throw new AppError('internal_error', 'route used auth without declaring it');
  return { userId: auth.userId, keyId: auth.apiKeyId ?? null, client: clientOf(request) };
}

export function checkedId(kind: IdKind, id: string, what: string): string {
  if (!isId(kind, id)) throw new AppError('not_found', `No ${what} with this id.`);
  return id;
}
