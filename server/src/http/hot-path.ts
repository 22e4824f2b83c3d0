import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { RateDecision } from '../modules/limits/rate-limiter.js';
import { limitsFor } from '../modules/limits/tiers.js';
import type { UserRow } from '../modules/users/users.repository.js';
import type { AuthRequirement } from './auth-context.js';
import { authorizationFailure, cachedEnabledAccount, resolveCachedCredential, type AuthenticateDeps } from './authenticate.js';
import { setPrecounted } from './precounted.js';
import { appendCommonHeaders } from './common-headers.js';
import { appendRateLimitHeaders } from './rate-limit-headers.js';
import { generateRequestId } from './request-id.js';
import type { RouteHistogram } from './route-histogram.js';

/**
 * A GET whose answer comes from memory alone: the account the authenticate step loads and the
 * limiter's decision. Declared next to the Fastify route it stands for (same requirement, same
 * presenter), which stays registered and answers every request the hot path passes on.
 */
export interface HotRoute {
  /** The exact request target, `/v1/...` without a query: also the route template in metrics and logs. */
  url: string;
  requirement: AuthRequirement;
  /** The 200 body, byte for byte what the Fastify route's serializer writes (hot-path.test.ts checks). */
  body(account: UserRow, decision: RateDecision): string;
}

export interface HotPathDeps extends AuthenticateDeps {
  durations: RouteHistogram;
  /** Given when the app logs one line per request (LOG_LEVEL=info or lower): the hot path writes the same line. */
  requestLog: Pick<Logger, 'info'> | undefined;
}

export interface HotPath {
  /** The server's request listener: answers what it can, hands everything else to `next` (Fastify). */
  listener(next: RequestListener): RequestListener;
  /** From now on every request goes to Fastify (which answers 503 while the app closes). */
  stop(): void;
  /** Requests answered here since start (exposed as a metric: how much traffic takes this path). */
  readonly answered: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';
type Recorder = (method: string, status: number, seconds: number) => void;
interface HotEntry {
  route: HotRoute;
  record: Recorder;
}

/**
 * The hot path: the most frequent authenticated GETs (`/v1/users/me`, `/v1/usage`) answered
 * straight from Node's `request` event when everything they need is already in memory: a
 * credential verified before, a fresh cached account, and the limiter's go-ahead. It runs the
 * same steps as Fastify's pipeline (authenticate.ts, the common headers (common-headers.ts), the route's
 * presenter, the duration histogram, the request log line) without building Fastify's request,
 * reply, hook chain and serializer: about a fifth of the CPU such a request costs (PERFORMANCE.md).
 *
 * Anything else goes to Fastify untouched: another method or path (a query string included), a
 * credential or account not in the caches, a credential the route refuses. Those checks come
 * before counting; once the request has been counted, an outcome other than 200 (budget used up,
 * limiter failure) is handed to Fastify with the request (precounted.ts), so it is reported by
 * the usual error path and never counted twice.
 */
export function createHotPath(deps: HotPathDeps, routes: readonly HotRoute[]): HotPath {
  const byUrl = new Map<string, HotEntry>(routes.map((route) => [route.url, { route, record: deps.durations.forRoute(route.url) }]));
  let stopped = false;
  let answered = 0;

  function answer(req: IncomingMessage, res: ServerResponse, route: HotRoute, record: Recorder, account: UserRow, decision: RateDecision, startedAt: number): void {
    const body = route.body(account, decision);
    const requestId = generateRequestId(req);
    // The headers Fastify's route would send: the common ones, the rate-limit headers, the JSON type and length.
    const headers: string[] = [];
    appendCommonHeaders(headers, requestId, route.url);
    appendRateLimitHeaders(headers, decision, deps.clock.now());
    headers.push('content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(body)));
    res.writeHead(200, headers);
    res.end(body);
    answered++;
    const ms = performance.now() - startedAt;
    record('GET', 200, ms / 1000);
    deps.requestLog?.info({ reqId: requestId, method: 'GET', url: route.url, status: 200, ms: Math.round(ms) }, 'request');
  }

  return {
    get answered() {
      return answered;
    },
    stop() {
      stopped = true;
    },
    listener(next) {
      /** The limiter answered: a 200 from here, or the request goes to Fastify with the outcome. */
      const respond = (req: IncomingMessage, res: ServerResponse, hot: HotEntry, account: UserRow, startedAt: number, error: unknown, decision: RateDecision | undefined) => {
        if (decision === undefined || !decision.allowed) {
          setPrecounted(req, { error, decision });
          return next(req, res);
        }
        try {
          answer(req, res, hot.route, hot.record, account, decision, startedAt);
        } catch (answerError) {
          // A bug here must not cost the request: Fastify answers it (a logged 500 problem).
          if (res.headersSent) return res.destroy(answerError as Error);
          setPrecounted(req, { error: answerError, decision: undefined });
          next(req, res);
        }
      };
      return (req, res) => {
        const hot = stopped || req.method !== 'GET' ? undefined : byUrl.get(req.url!);
        if (hot === undefined) return next(req, res);
        const startedAt = performance.now();
        const auth = resolveCachedCredential(deps, req.headers.authorization);
        const account = cachedEnabledAccount(deps, auth);
        if (auth === undefined || account === undefined || authorizationFailure(auth, hot.route.requirement, account.role) !== undefined) {
          return next(req, res);
        }
        const limits = limitsFor(account);
        if (deps.limiter.consumeNow !== undefined) return respond(req, res, hot, account, startedAt, null, deps.limiter.consumeNow(auth.userId, limits));
        deps.limiter.consumeThen(auth.userId, limits, (error, decision) => respond(req, res, hot, account, startedAt, error, decision));
      };
    },
  };
}
