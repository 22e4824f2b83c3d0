/**
 * For the tests of live chat streams on React Native's XMLHttpRequest (installReactNativeXhr): an
 * account with a chat and an agent runtime, and what the emulated native networking module saw of
 * the chat's stream requests.
 */
import { createGatehouse, type Gatehouse, type Schemas } from '@gatehouse/sdk';
import type { SessionStorage } from '../src/index.js';
import { returningUser, SERVER, until } from './helpers.js';
import type { ReactNativeXhr } from './native-networking.js';

type Message = Schemas['Message'];

export interface ChatWithRuntime {
  /** The user's client and session storage. */
  gh: Gatehouse;
  storage: SessionStorage;
  chatId: string;
  /** The agent's runtime: its own client, with an API key of the account (chats:read, chats:write). */
  runtime: Gatehouse;
  key: string;
}

export async function chatWithRuntime(): Promise<ChatWithRuntime> {
  const { storage } = await returningUser('Ada Live');
  const gh = createGatehouse({ baseUrl: SERVER, tokenStore: storage });
  const agent = await gh.agents.create({ name: 'Storyteller', model: 'gpt-4o' });
  const chat = await gh.chats.create({ agent_id: agent.id, title: 'Stories' });
  const { key } = await gh.apiKeys.create({ name: 'runtime', scopes: ['chats:read', 'chats:write'] });
  return { gh, storage, chatId: chat.id, runtime: createGatehouse({ baseUrl: SERVER, apiKey: key! }), key: key! };
}

/** A reply the runtime streams: created `streaming`, one delta per piece, then completed (unless told not to). */
export async function streamedReply(runtime: Gatehouse, chatId: string, pieces: string[], complete = true): Promise<Message> {
  const reply = await runtime.chats.messages.create(chatId, { role: 'assistant', status: 'streaming' });
  for (const [i, content] of pieces.entries()) await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: i + 1, content });
  return complete ? runtime.chats.messages.complete(chatId, reply.id) : reply;
}

export const streamUrl = (chatId: string) => `${SERVER}/v1/chats/${chatId}/stream`;

/** The native requests of `chatId`'s stream the server answered, with the status it answered. */
export function streamAnswers(rn: ReactNativeXhr, chatId: string): Array<{ id: number; status: number }> {
  return rn.events
    .filter((e) => e.name === 'didReceiveNetworkResponse' && String(e.args[3]).startsWith(streamUrl(chatId)))
    .map((e) => ({ id: e.args[0] as number, status: e.args[1] as number }));
}

/**
 * Resolves once `count` streams of `chatId` have been live (answered 200, and their first bytes,
 * the `retry:` line, arrived): from then on that stream sees every event.
 */
export function streamsLive(rn: ReactNativeXhr, chatId: string, count: number): Promise<unknown> {
  return until(`${count} live stream(s) of ${chatId}`, () => {
    const open = new Set(streamAnswers(rn, chatId).filter((a) => a.status === 200).map((a) => a.id));
    return rn.events.filter((e) => e.name === 'didReceiveNetworkIncrementalData' && open.has(e.args[0] as number) && String(e.args[1]).includes('retry:')).length >= count;
  });
}

/** Opens the chat's stream with a plain request (Node's fetch, not the SDK): the status it gets, and the connection closed again. */
export async function probeStreamStatus(chatId: string, key: string): Promise<{ status: number; code?: string }> {
  const abort = new AbortController();
  const response = await fetch(streamUrl(chatId), { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, signal: abort.signal });
  const code = response.ok ? undefined : ((await response.json()) as { code: string }).code;
  abort.abort();
  return { status: response.status, ...(code ? { code } : {}) };
}
