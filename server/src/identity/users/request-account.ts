import type { FastifyRequest } from 'fastify';
import { AppError } from '../../kernel/errors.js';
import type { UserRow } from './users.repository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's account row as authentication loaded it (set with auth). */
    account: UserRow | null;
  }
}

/** The caller's account as the authenticate step loaded it (cached at most ACCOUNT_CACHE_TTL_MS). */
export function requireAccount(request: FastifyRequest): UserRow {
  if (!request.account) throw new AppError('internal_error', 'route used auth without declaring it');
  return request.account;
}
