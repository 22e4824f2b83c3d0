import type { FastifyRequest } from 'fastify';
import { clientOf } from '../../kernel/client-info.js';
import { actingOrgId, requireAuth } from '../../http/caller.js';
import type { AuditActor } from '../organizations/audit-log.js';


/** The caller as the organization's audit log records them: the member, their key if one was used, and where from. */
export function auditActorOf(request: FastifyRequest): AuditActor {
  const auth = requireAuth(request);
  return { orgId: actingOrgId(request), userId: auth.userId, keyId: auth.apiKeyId ?? null, client: clientOf(request) };
}
