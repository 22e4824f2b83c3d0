import type { Coverage } from './contract-client.js';
import type { SpecOperation } from './spec.js';

/**
 * Documented answers this suite does not provoke, each with where it is tested instead. Keys are
 * `<operationId> <status>`. Keep it short: an entry that is no longer documented, or that the run
 * did produce after all, fails the coverage test too, so the list cannot rot.
 */
export const NOT_EXERCISED: Record<string, string> = {
  'metrics 404': 'answered only while METRICS_TOKEN is unset (this server sets it); test/metrics-access.test.ts',
  'readyz 503': 'needs the database or Redis to fail; test/redis-outage.test.ts and the faults suite',
  'passkeyRegistrationOptions 422': 'needs an account with 20 passkeys; test/routes/passkeys.test.ts',
  'addPasskey 422': 'needs an account with 20 passkeys; test/routes/passkeys.test.ts',
  'deleteMe 409': 'needs the account to be the last owner of a team with other members (last_owner); test/routes/organization-context.test.ts',
  'acceptInvitation 422': 'needs an account in 100 organizations (limit_reached); test/routes/organizations.test.ts',
  'signInAnonymously 404': 'answered only while ANONYMOUS_SIGN_IN is off (this server turns it on); test/routes/guests.test.ts',
  'decideOauthInteraction 409': 'needs a person whose role allows none of the scopes an app asks for (a viewer asked for writes); test/oauth-authorization-server.test.ts',
};

export interface CoverageGaps {
  /** Operations never answered 2xx to a request the strict proxy accepted. */
  withoutSuccess: string[];
  /** Documented `<operationId> <status>` never answered, and not exempted. */
  unexercisedStatuses: string[];
  /** Exemptions for statuses that are not documented, or that the run produced anyway. */
  staleExemptions: string[];
}

/**
 * The 409 of an idempotent operation (a duplicate arriving while the first is in progress) needs
 * the two requests to interleave. On PostgreSQL they do and the idempotency sweep must produce it;
 * on embedded SQLite every query is synchronous, so a request runs to its end before the next
 * starts and the 409 cannot be provoked from outside (test/routes covers the claim logic there).
 */
function raceOnly(op: SpecOperation, status: string): boolean {
  return status === '409' && op.headerParams.includes('idempotency-key');
}

export function coverageGaps(ops: Map<string, SpecOperation>, coverage: Coverage, options: { requestsInterleave: boolean }): CoverageGaps {
  const documented = new Set<string>();
  const unexercisedStatuses: string[] = [];
  for (const op of ops.values()) {
    for (const status of op.statuses) {
      const key = `${op.operationId} ${status}`;
      documented.add(key);
      if (coverage.answered.get(op.operationId)?.has(Number(status)) || key in NOT_EXERCISED) continue;
      if (!options.requestsInterleave && raceOnly(op, status)) continue;
      unexercisedStatuses.push(key);
    }
  }
  const staleExemptions = Object.keys(NOT_EXERCISED).filter((key) => {
    const [operationId, status] = key.split(' ');
    return !documented.has(key) || Boolean(coverage.answered.get(operationId!)?.has(Number(status)));
  });
  return {
    withoutSuccess: [...ops.keys()].filter((id) => !coverage.succeeded.has(id)),
    unexercisedStatuses,
    staleExemptions,
  };
}
