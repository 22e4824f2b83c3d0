import type { Bus } from '../../kernel/bus.js';
import type { Clock } from '../../kernel/clock.js';
import type { AccountCache } from '../../identity/index.js';
import type { OrganizationCache } from '../../access/index.js';
import type { CloseReason, LiveStream } from './live-stream.js';

/**
 * This instance's open streams, and the one timer they share: every second it ends streams whose
 * credential expired and, every `heartbeatSeconds`, writes a comment so proxies do not close an
 * idle stream. A revoked session or key, a disabled or deleted account, or a member removed
 * from an organization, arrives on the bus (on every instance at once) and ends the streams it held open.
 */
export function createStreamRegistry(deps: { bus: Bus; accounts: Pick<AccountCache, 'get'>; organizations: Pick<OrganizationCache, 'get'>; clock: Clock; heartbeatSeconds: number; onError: (error: unknown) => void }) {
  const open = new Set<LiveStream>();
  const closeWhere = (match: (s: LiveStream) => boolean, reason: CloseReason) => {
    for (const stream of open) if (match(stream)) stream.close(reason);
  };

  deps.bus.subscribe((message) => {
    if (message.type === 'sessions-revoked') {
      const ids = new Set(message.ids);
      closeWhere((s) => s.owner.sessionId !== null && ids.has(s.owner.sessionId), 'credential_revoked');
    } else if (message.type === 'api-keys-revoked') {
      const hashes = new Set(message.hashes);
      closeWhere((s) => s.owner.apiKeyHash !== undefined && hashes.has(s.owner.apiKeyHash), 'credential_revoked');
    } else if (message.type === 'api-keys-changed') {
      // Narrowed, limited or rolled: what the stream was admitted with may no longer hold (a
      // scope taken away, a grace that now ends). The client reconnects, and is admitted afresh.
      const hashes = new Set(message.hashes);
      closeWhere((s) => s.owner.apiKeyHash !== undefined && hashes.has(s.owner.apiKeyHash), 'credential_changed');
    } else if (message.type === 'account-changed') {
      void recheckAccount(message.userId).catch(deps.onError);
    } else if (message.type === 'membership-changed') {
      void recheckMembership(message.orgId, (s) => s.owner.userId === message.userId).catch(deps.onError);
    } else if (message.type === 'organization-changed') {
      void recheckMembership(message.orgId, () => true).catch(deps.onError);
    }
  });

  /**
   * A member removed (or an organization deleted) ends the streams that member held open in it;
   * a role change keeps them (every role may read). Read after the bus dropped the cached
   * membership, so the answer is the database's.
   */
  async function recheckMembership(orgId: string, whose: (s: LiveStream) => boolean): Promise<void> {
    const users = new Set<string>();
    for (const s of open) if (s.owner.orgId === orgId && whose(s)) users.add(s.owner.userId);
    for (const userId of users) {
      if ((await deps.organizations.get(orgId, userId)) === null) closeWhere((s) => s.owner.orgId === orgId && s.owner.userId === userId, 'credential_revoked');
    }
  }

  async function recheckAccount(userId: string): Promise<void> {
    let holds = false;
    for (const s of open) {
      if (s.owner.userId === userId) {
        holds = true;
        break;
      }
    }
    if (!holds) return;
    const account = await deps.accounts.get(userId);
    if (!account) closeWhere((s) => s.owner.userId === userId, 'credential_revoked');
    else if (account.disabled) closeWhere((s) => s.owner.userId === userId, 'account_disabled');
  }

  let ticks = 0;
  const ticker = setInterval(() => {
    const now = deps.clock.now();
    const beat = ++ticks % deps.heartbeatSeconds === 0;
    for (const stream of open) {
      if (stream.owner.expiresAt !== null && stream.owner.expiresAt <= now) stream.close('token_expired');
      else if (beat) stream.heartbeat();
    }
  }, 1_000);
  ticker.unref();

  return {
    add: (stream: LiveStream) => void open.add(stream),
    remove: (stream: LiveStream) => void open.delete(stream),
    get size() {
      return open.size;
    },
    /** At shutdown (before the server waits for its connections): every client is told, and reconnects to another instance. */
    closeAll(): void {
      closeWhere(() => true, 'shutdown');
    },
    stop(): void {
      clearInterval(ticker);
    },
  };
}
export type StreamRegistry = ReturnType<typeof createStreamRegistry>;
