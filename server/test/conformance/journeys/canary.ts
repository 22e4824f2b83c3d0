import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/kernel/ids.js';
import { ContractClient, Coverage } from '../contract-client.js';
import { randomIp, signUp, type GetContext } from '../context.js';
import { startPrism } from '../prism.js';
import { operationsOf, type OpenApiDocument } from '../spec.js';

interface Schema {
  required?: string[];
  properties?: Record<string, unknown>;
}
interface Mutable {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }>; parameters?: { name: string; required?: boolean }[] }>>;
}

/** The published document with four deliberate lies, one of each kind the suite must catch. */
function wrongCopy(doc: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(doc) as unknown as Mutable;
  // 1. An answer body the server never sends (a required field): Prism's --errors turns it into a 500.
  const me = copy.components.schemas.Me!;
  me.required = [...(me.required ?? []), 'canary_field'];
  me.properties = { ...me.properties, canary_field: { type: 'string' } };
  // 2. An undocumented status: only a warning in sl-violations, the server's answer still comes through.
  delete copy.paths['/v1/agents/{id}']!.get!.responses['404'];
  // 3. A request the document forbids: Prism refuses it without asking the server.
  copy.paths['/v1/agents']!.get!.parameters!.find((p) => p.name === 'limit')!.required = true;
  // 4. A response header the server never sends, and one whose value breaks its schema.
  const sessions = copy.paths['/v1/sessions']!.get!.responses['200']!;
  sessions.headers = { ...sessions.headers, 'X-Canary': { required: true, schema: { type: 'string' } } };
  const usage = copy.paths['/v1/usage']!.get!.responses['200']!;
  usage.headers = { ...usage.headers, 'X-Request-Id': { required: true, schema: { type: 'string', pattern: '^canary_' } } };
  return copy as unknown as OpenApiDocument;
}

/** Every test must be able to fail: the client must catch each kind of violation Prism reports. */
export function canaryJourney(ctx: GetContext): void {
  describe('the suite can fail', () => {
    it('catches each kind of violation Prism reports against a wrong copy of the document', async () => {
      const { stack, api } = ctx();
      const actor = await signUp(api, 'canary');
      const specFile = join(dirname(stack.specFile), 'wrong-openapi.json');
      const doc = wrongCopy(stack.doc);
      writeFileSync(specFile, JSON.stringify(doc));
      const prism = await startPrism(specFile, stack.server.base, { validateRequest: true });
      try {
        // Its own coverage: answers seen through a wrong document prove nothing about the real one.
        const canary = new ContractClient(operationsOf(doc), { strict: prism.base, lenient: prism.base, upstream: prism.base }, new Coverage(), randomIp());
        await expect(canary.call('getMe', { token: actor.access }, 200)).rejects.toThrow(/response Error.*canary_field/);
        await expect(canary.call('getAgent', { token: actor.access, path: { id: newId('agent') } }, 404)).rejects.toThrow(/response Warning.*status code/);
        await expect(canary.call('listAgents', { token: actor.access }, 200)).rejects.toThrow(/request Error.*limit/);
        await expect(canary.call('listSessions', { token: actor.access }, 200)).rejects.toThrow(/response Error at header.*x-canary/i);
        await expect(canary.call('getUsage', { token: actor.access }, 200)).rejects.toThrow(/response Error at header.*x-request-id/i);
        // ...while the same requests pass through the true document.
        await api.call('getMe', { token: actor.access }, 200);
        await api.call('getAgent', { token: actor.access, path: { id: newId('agent') } }, 404);
        await api.call('listAgents', { token: actor.access }, 200);
        await api.call('listSessions', { token: actor.access }, 200);
        await api.call('getUsage', { token: actor.access }, 200);
      } finally {
        await prism.stop();
      }
    });
  });
}
