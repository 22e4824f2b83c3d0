import type { RateDecision } from '../kernel/limits/limiter.js';
import type { Scope } from '../kernel/access-terms/scopes.js';
import type { AuthContext, Membership } from '../kernel/access-terms/credentials.js';

export type { AuthContext };

/**
 * What a route demands, declared in its `config.auth`:
 * - 'session': an access token from a login (account management; API keys get session_required)
 * - a scope: any credential carrying it
 * - 'admin': an access token of a user with role admin
 * - 'any': any valid credential
 */
export type AuthRequirement = 'session' | 'admin' | 'any' | Scope;

/** Whose budget a route spends (`config.budget`; 'spend' when absent). */
export type BudgetMode = 'spend' | 'exempt' | 'caller-free';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
    /**
     * 'exempt': managing one's own account (reading it, its usage, keys and sessions; revoking,
     * logging out, changing the password): the request spends nothing from the account's budget
     * and is never refused by it, so an owner whose budget a runaway key burned can still stop
     * it. Such routes have an abuse limit of their own instead (account-route-limit.ts).
     * 'caller-free': the caller's own budget is not spent at all (POST /v1/auth/verify: a service
     * key answering for the platform's services spends from the verified credential's account).
     * Absent: the request spends from the budget (the platform's routes).
     */
    budget?: 'exempt' | 'caller-free';
    /** The 201 carries a Location header (the created resource): the document says so. */
    locationHeader?: boolean;
    /** Per-IP limit group for public endpoints (register, login, refresh, forgot). */
    publicLimit?: string;
    /** A page a person's browser navigates to: a refusal asked for as HTML is a page (problem-page.ts). */
    browserPage?: boolean;
    /**
     * The protected resource the route belongs to (RFC 8707), when it is not the REST API: 'mcp'
     * (the MCP endpoint) takes only an app's token bound to it, and the REST API refuses such a
     * token. Absent: the REST API.
     */
    resource?: 'mcp';
  }
  interface FastifyRequest {
    auth: AuthContext | null;
    /** The account's budget after this request was counted (set with auth; null on exempt routes). */
    rateLimit: RateDecision | null;
    /** The organization the request acts for and the caller's role in it (set with auth). */
    organization: Membership | null;
  }
}
