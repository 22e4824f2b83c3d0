import type { Seed } from './gatehouse-fixture.js';
import type { InjectionPoint, SqlmapTarget } from './sqlmap-runner.js';

const query = (key: string): InjectionPoint => ({ where: 'query', key, sqlmapName: key });
const json = (key: string): InjectionPoint => ({ where: 'json', key, sqlmapName: `JSON ${key}` });
const path = (id: string): InjectionPoint => ({ where: 'path', key: id, sqlmapName: '#1*' });

/** Query strings reach the database (cursors, filters): the deepest scan, level 3 / risk 2. */
const LIST = { level: 3, risk: 2 };
/** Bodies: every request writes a row, so a lighter scan keeps the run within its budget. */
const BODY = { level: 2, risk: 1 };
/** Register and login run argon2 on every request (≈10–20 ms of CPU): the lightest scan. */
const AUTH = { level: 1, risk: 1 };

/**
 * Every kind of input that could reach SQL: list parameters (limit, cursor, filters) of each list
 * route, one path id of each resource, and the JSON bodies that are stored or looked up. Each
 * starts from a valid request, so sqlmap compares its payloads with a real 200/201 answer.
 */
export function gatehouseTargets(s: Seed): SqlmapTarget[] {
  const lists: SqlmapTarget[] = [
    { name: 'list agents', method: 'GET', path: `/v1/agents?limit=20&cursor=${s.agentId}`, bearer: s.token, points: [query('limit'), query('cursor')], ...LIST },
    { name: 'list chats (API key)', method: 'GET', path: `/v1/chats?limit=20&cursor=${s.chatId}&agent_id=${s.agentId}`, bearer: s.apiKey, points: [query('limit'), query('cursor'), query('agent_id')], ...LIST },
    { name: 'list messages', method: 'GET', path: `/v1/chats/${s.chatId}/messages?limit=20&cursor=${s.messageId}`, bearer: s.token, points: [query('limit'), query('cursor')], ...LIST },
    { name: 'list deliveries', method: 'GET', path: `/v1/webhooks/${s.webhookId}/deliveries?limit=20&status=pending`, bearer: s.token, points: [query('limit'), query('status')], ...LIST },
    { name: 'list webhooks', method: 'GET', path: `/v1/webhooks?limit=20&cursor=${s.webhookId}`, bearer: s.token, points: [query('limit'), query('cursor')], ...LIST },
    { name: 'list sessions', method: 'GET', path: `/v1/sessions?limit=20&cursor=${s.sessionId}`, bearer: s.token, points: [query('limit'), query('cursor')], ...LIST },
    { name: 'list api keys', method: 'GET', path: `/v1/api-keys?limit=20&cursor=${s.apiKeyId}`, bearer: s.token, points: [query('limit'), query('cursor')], ...LIST },
    { name: 'list security events', method: 'GET', path: '/v1/users/me/security-events?limit=20', bearer: s.token, points: [query('limit')], ...LIST },
    // The one free-text filter: an email compared in SQL.
    { name: 'admin find users', method: 'GET', path: `/v1/admin/users?email=${encodeURIComponent(s.email)}&limit=20&cursor=${s.userId}`, bearer: s.token, points: [query('email'), query('limit'), query('cursor')], ...LIST },
  ];
  const ids: SqlmapTarget[] = [
    { name: 'agent by id', method: 'GET', path: `/v1/agents/${s.agentId}*`, bearer: s.token, points: [path(s.agentId)], ...LIST },
    { name: 'chat by id', method: 'GET', path: `/v1/chats/${s.chatId}*`, bearer: s.apiKey, points: [path(s.chatId)], ...LIST },
    { name: 'api key by id', method: 'GET', path: `/v1/api-keys/${s.apiKeyId}*`, bearer: s.token, points: [path(s.apiKeyId)], ...LIST },
    { name: 'webhook by id', method: 'GET', path: `/v1/webhooks/${s.webhookId}*`, bearer: s.token, points: [path(s.webhookId)], ...LIST },
  ];
  // A fresh address for every registration, so name and password payloads get past the unique email.
  const freshEmail = 'import random; email = "sqlmap%d@example.com" % random.randint(0, 10**15)';
  const bodies: SqlmapTarget[] = [
    { name: 'register', method: 'POST', path: '/v1/auth/register', body: { email: 'x@example.com', password: 'Vivid-Otter-Quarry-42', name: 'Ada' }, eval: freshEmail, points: [json('name'), json('password')], refused: [429], ...AUTH },
    { name: 'register email', method: 'POST', path: '/v1/auth/register', body: { email: s.email, password: 'Vivid-Otter-Quarry-42', name: 'Ada' }, points: [json('email')], refused: [429], ...AUTH },
    // Wrong credentials are the point here: 401 is the expected answer to most payloads.
    { name: 'login', method: 'POST', path: '/v1/auth/login', body: { username: s.email, password: s.password }, points: [json('username'), json('password')], refused: [429], ignoreCodes: [401], ...AUTH },
    { name: 'create agent', method: 'POST', path: '/v1/agents', bearer: s.token, body: { name: 'Bot', model: 'gpt-4o', description: 'Helps', instructions: 'Be kind.' }, points: [json('name'), json('model'), json('description'), json('instructions')], ...BODY },
    { name: 'update agent', method: 'PATCH', path: `/v1/agents/${s.agentId}`, bearer: s.token, body: { name: 'Bot', description: 'Helps' }, points: [json('name'), json('description')], ...BODY },
    { name: 'create chat', method: 'POST', path: '/v1/chats', bearer: s.apiKey, body: { agent_id: s.agentId, title: 'Hi' }, points: [json('agent_id'), json('title')], ...BODY },
    { name: 'post message', method: 'POST', path: `/v1/chats/${s.chatId}/messages`, bearer: s.apiKey, body: { role: 'user', content: 'Hello' }, points: [json('role'), json('content')], ...BODY },
  ];
  return [...lists, ...ids, ...bodies];
}
