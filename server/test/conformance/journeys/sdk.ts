import { describe, expect, it } from 'vitest';
import { collect, createGatehouse, isGatehouseError, type FetchLike } from '../../../../sdk/src/index.js';
import type { ContractClient } from '../contract-client.js';
import { PASSWORD, randomIp, uniqueEmail, type GetContext } from '../context.js';
import { describeViolations, verdictOf } from '../verdict.js';

/**
 * The official SDK (what the dashboard uses) as a real client, through the strict proxy: every
 * request it builds must be one the document allows, and every answer must match the document.
 * Its fetch reads Prism's verdict on each exchange and notes what the proxy covered.
 */
function checkedFetch(api: ContractClient, ip: string, problems: string[]): FetchLike {
  return async (input, init) => {
    const headers = new Headers(init.headers);
    headers.set('x-forwarded-for', ip);
    const response = await fetch(input, { ...init, headers });
    const text = await response.clone().text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (metrics): the verdict only needs JSON bodies
    }
    const method = init.method ?? 'GET';
    const { fromServer, violations } = verdictOf(response.headers, body);
    if (!fromServer || violations.length > 0) problems.push(`${method} ${input} → ${response.status}\n${describeViolations(violations)}`);
    else api.recordExchange(method, new URL(input).pathname, response.status);
    return response;
  };
}

export function sdkJourney(ctx: GetContext): void {
  describe('the SDK, as a real client', () => {
    it('signs up and drives every resource through the proxy without a contract violation', async () => {
      const { api, stack } = ctx();
      const problems: string[] = [];
      const gh = createGatehouse({ baseUrl: stack.strict.base, fetch: checkedFetch(api, randomIp(), problems), maxRetries: 0 });
      const email = uniqueEmail('sdk');
      await gh.auth.register({ email, password: PASSWORD, name: 'SDK' });
      await gh.auth.login({ username: email, password: PASSWORD });
      expect((await gh.me.get()).email).toBe(email);
      await gh.me.update({ name: 'SDK user' });
      await gh.sessions.list();
      await gh.me.securityEvents();
      await gh.usage.get();

      const key = await gh.apiKeys.create({ name: 'sdk', scopes: ['agents:read'] });
      await gh.apiKeys.get(key.id);
      expect((await collect((cursor) => gh.apiKeys.list({ cursor, limit: 1 }))).length).toBe(1);
      await gh.apiKeys.revoke(key.id);

      const agents = await Promise.all(['a', 'b', 'c'].map((name) => gh.agents.create({ name, model: 'gpt-4o' })));
      expect(await collect((cursor) => gh.agents.list({ cursor, limit: 2 }))).toHaveLength(3);
      await gh.agents.update(agents[0]!.id, { description: 'first' });
      const chat = await gh.chats.create({ agent_id: agents[0]!.id, title: 'sdk' });
      await gh.chats.messages.create(chat.id, { role: 'user', content: 'hello' });
      expect(await collect((cursor) => gh.chats.messages.list(chat.id, { cursor }))).toHaveLength(1);
      await gh.chats.list({ agent_id: agents[0]!.id });
      await gh.chats.get(chat.id);
      await gh.chats.delete(chat.id);
      await gh.agents.delete(agents[1]!.id);
      const missing = await gh.agents.get(agents[1]!.id).then(() => null, (error: unknown) => error);
      expect(isGatehouseError(missing, 'not_found')).toBe(true);

      const hook = await gh.webhooks.create({ url: stack.receiver.url, events: ['*'] });
      await gh.webhooks.test(hook.id);
      await gh.webhooks.deliveries(hook.id);
      await gh.webhooks.update(hook.id, { description: 'sdk' });
      await gh.webhooks.list();
      await gh.webhooks.get(hook.id);
      await gh.webhooks.delete(hook.id);

      await gh.system.jwks();
      await gh.system.health();
      await gh.system.ready();
      await gh.auth.logout();
      expect(problems).toEqual([]);
    });
  });
}
