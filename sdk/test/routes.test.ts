/**
 * The SDK covers every operation of the committed OpenAPI document, at the right method and
 * path, with the right credential and Idempotency-Key behaviour. (drift.test.ts makes sure that
 * document is the server's current one.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../src/index.js';

const SDK_DIR = join(import.meta.dirname, '..');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface Operation {
  operationId: string;
  'x-gatehouse-auth'?: { api_keys: boolean };
  security?: unknown[];
  parameters?: { in: string; name: string }[];
}
const doc = JSON.parse(readFileSync(join(SDK_DIR, 'openapi.json'), 'utf8')) as { paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>> };
const operations = Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path, op: item[m]! })));

describe('operation table', () => {
  it('has exactly the document’s operations, at their method and path', () => {
    expect(Object.keys(ROUTES).sort()).toEqual(operations.map((o) => o.op.operationId).sort());
    for (const { method, path, op } of operations) {
      expect(ROUTES[op.operationId as keyof typeof ROUTES].at, op.operationId).toEqual([method, path]);
    }
  });

  it('sends no credential exactly where the document says the operation is public', () => {
    for (const { op } of operations) {
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      expect(Boolean(ROUTES[op.operationId as keyof typeof ROUTES].public), op.operationId).toBe(isPublic);
    }
  });

  it('sends the session where the document makes the credential optional (none, or bearerAuth), and only there', () => {
    for (const { op } of operations) {
      const optional = Array.isArray(op.security) && op.security.length > 1 && op.security.some((requirement) => Object.keys(requirement as object).length === 0);
      expect(Boolean(ROUTES[op.operationId as keyof typeof ROUTES].optionalSession), op.operationId).toBe(optional);
    }
    expect(ROUTES.verifyEmail.optionalSession).toBe(true);
  });

  it('sends an Idempotency-Key exactly where the server honours one', () => {
    for (const { op } of operations) {
      const honours = (op.parameters ?? []).some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      expect(Boolean(ROUTES[op.operationId as keyof typeof ROUTES].idempotent), op.operationId).toBe(honours);
    }
  });

  it('marks exactly the operations that refuse API keys as session-only', () => {
    for (const { op } of operations) {
      expect(Boolean(ROUTES[op.operationId as keyof typeof ROUTES].sessionOnly), op.operationId).toBe(op['x-gatehouse-auth']?.api_keys === false);
    }
    expect(ROUTES.createApiKey.sessionOnly).toBe(true);
    expect(ROUTES.listAgents.sessionOnly).toBeUndefined();
  });

  it('gives every operation a method on the client (src/resources calls each operationId)', () => {
    const dir = join(SDK_DIR, 'src', 'resources');
    const source = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    const called = new Set([...source.matchAll(/call\('([A-Za-z]+)'/g)].map((m) => m[1]));
    // login/refresh are also sent by the session manager; refresh's public method is auth.refresh().
    called.add('refresh');
    // The browser's steps of a provider sign-in: auth.providerSignIn() builds the authorize URL the
    // browser opens; the callbacks are where the provider sends that browser, never the SDK.
    for (const browserOnly of ['authorizeWithProvider', 'providerCallback', 'providerCallbackFormPost']) called.add(browserOnly);
    // The live streams are not one request and answer: chats.stream() and events.stream() open
    // them through src/streams (reconnecting, resuming), not through call().
    for (const streamed of ['streamChat', 'streamEvents']) called.add(streamed);
    expect(operations.map((o) => o.op.operationId).filter((id) => !called.has(id))).toEqual([]);
  });
});
