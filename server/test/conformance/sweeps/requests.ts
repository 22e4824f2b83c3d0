import { describe, expect, it } from 'vitest';
import type { Call, ContractClient } from '../contract-client.js';
import { randomIp, signUp, sweepIds, type Actor, type GetContext } from '../context.js';
import type { SpecOperation } from '../spec.js';
import { REQUIREMENTS, unknownIds, VALID_BODIES } from './operations.js';

/** Just over the server's default MAX_BODY_BYTES (1 MiB). */
const OVERSIZED = JSON.stringify({ padding: 'x'.repeat(1_100_000) });
/** Path parameters besides `{id}`: a message of a chat, a member or an invitation of an organization. */
const SECONDARY_IDS = ['message_id', 'user_id', 'invitation_id', 'delivery_id'] as const;
/** The server reads a body on these methods even when the route declares none. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every operation of the document with a body, a list or an id, driven generically with the
 * request mistakes a client makes. Protected operations use the admin's token (it reaches them
 * all, and none of these requests gets as far as the handler), except the account's own
 * operations (`session`): they are budget-exempt and share one small per-account allowance
 * (SERVER_LIMITS.accountRoutesPerMinute), which the sweeps together would spend many times over,
 * so each sweep sends them as an account of its own. Public ones use a fresh address each, so the
 * per-address limits stay out of the way.
 */
export function requestSweeps(ctx: GetContext): void {
  describe('every operation: request mistakes get the documented problem', () => {
    /** Who sends a protected operation's requests in one sweep; `holder` is that sweep's own account. */
    async function callerFor(op: SpecOperation, holder: () => Promise<Actor>): Promise<{ client: ContractClient; token?: string; actor?: Actor }> {
      if (!op.secured) return { client: ctx().api.from(randomIp()) };
      const requirement = REQUIREMENTS[op.operationId];
      if (requirement === 'session') {
        const actor = await holder();
        return { client: actor.api, token: actor.access, actor };
      }
      const admin = await ctx().admin();
      return { client: admin.api, token: requirement === 'credentials:verify' ? await ctx().serviceKey() : admin.access };
    }
    /** An account made on first use (a sweep without account operations makes none). */
    const lazyHolder = (): (() => Promise<Actor>) => {
      let holder: Promise<Actor> | undefined;
      return () => (holder ??= signUp(ctx().api, 'sweeper'));
    };

    async function sweep(ops: SpecOperation[], call: (op: SpecOperation) => Call, status: number, code: string): Promise<void> {
      expect(ops.length).toBeGreaterThan(0);
      const holder = lazyHolder();
      for (const op of ops) {
        const { client, token, actor } = await callerFor(op, holder);
        const answer = await client.callInvalid(op.operationId, { token, path: await sweepIds(op, actor), ...call(op) }, status);
        expect(answer.body.code, op.operationId).toBe(code);
      }
    }
    const ops = () => ctx().api.operations();
    const readingBody = () => ops().filter((op) => BODY_METHODS.has(op.method));

    it('an unknown body field: 400 validation_failed', () =>
      sweep(ops().filter((op) => op.hasBody), () => ({ json: { not_a_field: true } }), 400, 'validation_failed'));

    it('an empty body sent as JSON: 400 malformed_json', () =>
      sweep(readingBody(), () => ({ raw: { contentType: 'application/json', body: '' } }), 400, 'malformed_json'));

    it('a body that is not JSON: 415 unsupported_media_type', () =>
      sweep(readingBody(), () => ({ raw: { contentType: 'text/plain', body: 'hello' } }), 415, 'unsupported_media_type'));

    it('a body over the limit: 413 payload_too_large', () =>
      sweep(readingBody(), () => ({ raw: { contentType: 'application/json', body: OVERSIZED } }), 413, 'payload_too_large'));

    it('a path parameter with broken percent-encoding: 400 invalid_request', async () => {
      await sweep(ops().filter((op) => op.path.includes('{id}')), (op) => ({ path: { ...unknownIds(op), id: 'abc%ZZ' }, pathEncoded: true }), 400, 'invalid_request');
      for (const param of SECONDARY_IDS) {
        await sweep(ops().filter((op) => op.path.includes(`{${param}}`)), (op) => ({ path: { ...unknownIds(op), [param]: 'abc%ZZ' }, pathEncoded: true }), 400, 'invalid_request');
      }
    });

    it('a page size out of range: 400 validation_failed', async () => {
      const lists = ops().filter((op) => op.queryParams.includes('limit'));
      // The query is validated before the handler looks the id up, so even an unknown id gets 400.
      await sweep(lists, () => ({ query: { limit: 0 } }), 400, 'validation_failed');
      await sweep(lists, () => ({ query: { limit: 101 } }), 400, 'validation_failed');
    });

    it('an id that names nothing, or is not an id at all: 404 not_found', async () => {
      const holder = lazyHolder();
      // The live streams are among these: an unknown chat is refused before any stream opens.
      for (const op of ops().filter((o) => o.path.includes('{id}'))) {
        const { client, token } = await callerFor(op, holder);
        const unknown = unknownIds(op);
        const paths = [unknown, { ...unknown, id: 'not-an-id' }, ...SECONDARY_IDS.filter((param) => param in unknown).map((param) => ({ ...unknown, [param]: 'not-an-id' }))];
        for (const path of paths) {
          const json = VALID_BODIES[op.operationId];
          // A valid request (strict proxy): the document allows it, and documents the 404.
          const answer = await client.call(op.operationId, { token, path, ...(json !== undefined ? { json } : {}) }, 404);
          expect(answer.body.code, `${op.operationId} ${JSON.stringify(path)}`).toBe('not_found');
        }
      }
    });
  });
}
