import type { LightMyRequestResponse } from 'fastify';
import { bearer } from '../harness.js';
import type { FuzzWorld } from './fuzz-world.js';

/**
 * Every client-chosen text the service stores, with how to write it and every place it is read
 * back: the write's own answer, GET by id, and the list that contains it.
 */
export interface StoredField {
  name: string;
  kind: 'display' | 'free';
  /** Upper bound in code points. */
  max: number;
  /** JSON Pointer of the field in the request body, as validation errors name it. */
  pointer: string;
  write(value: string): Promise<LightMyRequestResponse>;
  /** Values read back after a successful write. */
  readBack(written: LightMyRequestResponse): Promise<string[]>;
  cleanup?(written: LightMyRequestResponse): Promise<void>;
}

export function storedFields(world: FuzzWorld): StoredField[] {
  const { t } = world;
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.request({ method, url, headers: bearer(world.accessToken()), ...(payload ? { payload } : {}) });
  const get = async (url: string) => {
    const res = await call('GET', url);
    if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode} ${res.body.slice(0, 200)}`);
    return res.json();
  };
  const inList = async (url: string, id: string) => {
    const item = ((await get(url)).data as Array<{ id: string }>).find((x) => x.id === id);
    if (!item) throw new Error(`${id} missing from ${url}`);
    return item as Record<string, unknown>;
  };
  const remove = (url: string) => async () => void (await call('DELETE', url));

  const agentField = (field: 'name' | 'description' | 'instructions', kind: StoredField['kind'], max: number): StoredField => ({
    name: `agent.${field}`, kind, max, pointer: `/${field}`,
    write: (value) => call('POST', '/v1/agents', { name: 'Round trip', model: 'gpt-4o', [field]: value }),
    readBack: async (w) => {
      const id = w.json().id as string;
      return [w.json()[field], (await get(`/v1/agents/${id}`))[field], (await inList('/v1/agents?limit=100', id))[field]] as string[];
    },
    cleanup: (w) => remove(`/v1/agents/${w.json().id}`)(),
  });

  return [
    {
      name: 'user.name', kind: 'display', max: 100, pointer: '/name',
      write: (value) => call('PATCH', '/v1/users/me', { name: value }),
      readBack: async (w) => {
        const me = await get('/v1/users/me');
        return [w.json().name, me.name, (await inList(`/v1/admin/users?email=${encodeURIComponent(me.email)}`, me.id)).name] as string[];
      },
    },
    {
      name: 'api_key.name', kind: 'display', max: 100, pointer: '/name',
      write: (value) => call('POST', '/v1/api-keys', { name: value }),
      readBack: async (w) => {
        const id = w.json().id as string;
        return [w.json().name, (await get(`/v1/api-keys/${id}`)).name, (await inList('/v1/api-keys?limit=100', id)).name] as string[];
      },
      cleanup: (w) => remove(`/v1/api-keys/${w.json().id}`)(),
    },
    agentField('name', 'display', 100),
    agentField('description', 'free', 2_000),
    agentField('instructions', 'free', 32_768),
    {
      name: 'agent.metadata value', kind: 'free', max: 500, pointer: '/metadata/note',
      write: (value) => call('POST', '/v1/agents', { name: 'Round trip', model: 'gpt-4o', metadata: { note: value } }),
      readBack: async (w) => {
        const id = w.json().id as string;
        return [w.json().metadata.note, (await get(`/v1/agents/${id}`)).metadata.note, ((await inList('/v1/agents?limit=100', id)).metadata as Record<string, string>).note] as string[];
      },
      cleanup: (w) => remove(`/v1/agents/${w.json().id}`)(),
    },
    {
      name: 'agent.description (PATCH)', kind: 'free', max: 2_000, pointer: '/description',
      write: (value) => call('PATCH', `/v1/agents/${world.liveIds().agents}`, { description: value }),
      readBack: async (w) => [w.json().description, (await get(`/v1/agents/${w.json().id}`)).description, (await inList('/v1/agents?limit=100', w.json().id)).description] as string[],
    },
    {
      name: 'chat.title', kind: 'display', max: 200, pointer: '/title',
      write: (value) => call('POST', '/v1/chats', { agent_id: world.liveIds().agents, title: value }),
      readBack: async (w) => {
        const id = w.json().id as string;
        return [w.json().title, (await get(`/v1/chats/${id}`)).title, (await inList(`/v1/chats?limit=100&agent_id=${world.liveIds().agents}`, id)).title] as string[];
      },
      cleanup: (w) => remove(`/v1/chats/${w.json().id}`)(),
    },
    {
      name: 'chat.title (PATCH)', kind: 'display', max: 200, pointer: '/title',
      write: (value) => call('PATCH', `/v1/chats/${world.liveIds().chats}`, { title: value }),
      readBack: async (w) => [w.json().title, (await get(`/v1/chats/${w.json().id}`)).title, (await inList(`/v1/chats?limit=100&agent_id=${world.liveIds().agents}`, w.json().id)).title] as string[],
    },
    {
      // A streamed reply: the value is its one delta, so the text is the delta's text exactly.
      name: 'message.content (delta)', kind: 'free', max: 32_768, pointer: '/content',
      write: async (value) => {
        const chat = world.liveIds().chats;
        const reply = await call('POST', `/v1/chats/${chat}/messages`, { role: 'assistant', status: 'streaming' });
        if (reply.statusCode !== 201) throw new Error(`starting a streamed reply answered ${reply.statusCode} ${reply.body.slice(0, 200)}`);
        return call('POST', `/v1/chats/${chat}/messages/${reply.json().id}/deltas`, { sequence: 1, content: value });
      },
      readBack: async (w) => [w.json().content, (await inList(`/v1/chats/${world.liveIds().chats}/messages?limit=100`, w.json().id)).content] as string[],
    },
    {
      name: 'message.content', kind: 'free', max: 32_768, pointer: '/content',
      write: (value) => call('POST', `/v1/chats/${world.liveIds().chats}/messages`, { role: 'user', content: value }),
      readBack: async (w) => [w.json().content, (await inList(`/v1/chats/${world.liveIds().chats}/messages?limit=100`, w.json().id)).content] as string[],
    },
    {
      name: 'webhook.description', kind: 'display', max: 500, pointer: '/description',
      write: (value) => call('POST', '/v1/webhooks', { url: 'https://93.184.215.14/round-trip', events: ['agent.created'], description: value }),
      readBack: async (w) => {
        const id = w.json().id as string;
        return [w.json().description, (await get(`/v1/webhooks/${id}`)).description, (await inList('/v1/webhooks?limit=100', id)).description] as string[];
      },
      cleanup: (w) => remove(`/v1/webhooks/${w.json().id}`)(),
    },
  ];
}
