import { describe, expect, it } from 'vitest';
import type { Chat, Message, StreamEvent } from '../src/lib/api.ts';
import { chatLogReducer, emptyChatLog, messagesOf, needsReplay, type ChatLog, type ChatLogAction } from '../src/lib/chat-log.ts';

/** The chat page's merge of list pages, its own answers and stream events (no browser needed). */
const chat: Chat = { id: 'cht_1', agent_id: 'agt_1', title: null, created_at: '2026-11-25T10:00:00.000Z', updated_at: '2026-11-25T10:00:00.000Z' };
const message = (id: string, over: Partial<Message> = {}): Message => ({ id, chat_id: chat.id, role: 'assistant', content: '', status: 'completed', delta_sequence: 0, created_at: '2026-11-25T10:00:00.000Z', ...over });
let sequence = 0;
const event = (type: string, data: unknown): ChatLogAction => ({ type: 'event', event: { id: `evt_${++sequence}`, type, created_at: '2026-11-25T10:00:00.000Z', data, sequence } as StreamEvent });
const delta = (id: string, n: number, content: string) => event('message.delta', { chat_id: chat.id, message_id: id, sequence: n, content });
const run = (...actions: ChatLogAction[]): ChatLog => actions.reduce(chatLogReducer, emptyChatLog);
const texts = (log: ChatLog) => messagesOf(log).map((m) => `${m.id}:${m.content}:${m.status}`);

describe('chat log', () => {
  it('keeps a message sent here once, whether the POST answer or the stream brings it first', () => {
    const mine = message('msg_2', { role: 'user', content: 'Hi' });
    const loaded: ChatLogAction = { type: 'loaded', chat, page: { data: [message('msg_1', { content: 'Welcome' })], next_cursor: null } };
    for (const order of [[{ type: 'message', message: mine }, event('message.created', mine)], [event('message.created', mine), { type: 'message', message: mine }]] as ChatLogAction[][]) {
      expect(texts(run(loaded, ...order))).toEqual(['msg_1:Welcome:completed', 'msg_2:Hi:completed']);
    }
  });

  it('grows a streaming reply delta by delta, once each, and settles on message.completed', () => {
    const reply = message('msg_3', { status: 'streaming' });
    const growing = run({ type: 'loaded', chat, page: { data: [], next_cursor: null } }, event('message.created', reply), delta('msg_3', 1, 'Hel'), delta('msg_3', 2, 'lo'), delta('msg_3', 2, 'lo'));
    expect(texts(growing)).toEqual(['msg_3:Hello:streaming']);
    expect(needsReplay(growing)).toBe(false);
    const done = chatLogReducer(growing, event('message.completed', { ...reply, content: 'Hello!', status: 'completed' }));
    expect(texts(done)).toEqual(['msg_3:Hello!:completed']);
    // Completed is final: a replayed creation or delta changes nothing.
    expect(texts([event('message.created', reply), delta('msg_3', 1, 'x')].reduce(chatLogReducer, done))).toEqual(['msg_3:Hello!:completed']);
  });

  it('does not trust the delta count of a reply a list page shows streaming: a replay from the first event rebuilds it exactly', () => {
    const reply = message('msg_4', { status: 'streaming' });
    // The page was read after deltas 1 and 2; the live stream then also brings 2 (read in between) and 3.
    const listed = run({ type: 'loaded', chat, page: { data: [{ ...reply, content: 'Hello' }], next_cursor: null } });
    expect(needsReplay(listed)).toBe(true);
    const live = [delta('msg_4', 2, 'lo'), delta('msg_4', 3, ', Ada')].reduce(chatLogReducer, listed);
    expect(texts(live)).toEqual(['msg_4:Hello:streaming']); // nothing appended twice
    // The replay: creation, every delta (those already seen included), then live.
    const replayed = [{ type: 'replaying' } as ChatLogAction, event('message.created', reply), delta('msg_4', 1, 'Hel'), delta('msg_4', 2, 'lo'), delta('msg_4', 3, ', Ada'), delta('msg_4', 4, '!')].reduce(chatLogReducer, live);
    expect(texts(replayed)).toEqual(['msg_4:Hello, Ada!:streaming']);
    expect(needsReplay(replayed)).toBe(false);
  });

  it('asks for a replay when a delta cannot be placed', () => {
    const loaded = run({ type: 'loaded', chat, page: { data: [], next_cursor: null } });
    expect(needsReplay(chatLogReducer(loaded, delta('msg_5', 3, 'x')))).toBe(true);
    const followed = chatLogReducer(loaded, event('message.created', message('msg_6', { status: 'streaming' })));
    expect(needsReplay(chatLogReducer(followed, delta('msg_6', 2, 'x')))).toBe(true);
    expect(needsReplay(chatLogReducer(followed, delta('msg_6', 1, 'x')))).toBe(false);
  });

  it('merges a list page that arrives after the stream’s events without undoing them', () => {
    const reply = message('msg_8', { status: 'streaming' });
    const early = run(event('message.created', reply), delta('msg_8', 1, 'Hi'));
    const loaded = chatLogReducer(early, { type: 'loaded', chat, page: { data: [{ ...reply, content: 'Hi' }, message('msg_7', { role: 'user', content: 'Hello?' })], next_cursor: null } });
    expect(texts(chatLogReducer(loaded, delta('msg_8', 2, ' there')))).toEqual(['msg_7:Hello?:completed', 'msg_8:Hi there:streaming']);
    expect(needsReplay(loaded)).toBe(false);
  });

  it('leaves out replayed events about messages older than the loaded page, until that page is loaded', () => {
    const loaded = run({ type: 'loaded', chat, page: { data: [message('msg_9', { content: 'newest' })], next_cursor: 'cursor' } });
    const replayed = chatLogReducer(loaded, event('message.created', message('msg_0', { content: 'old' })));
    expect(texts(replayed)).toEqual(['msg_9:newest:completed']);
    const earlier = chatLogReducer(replayed, { type: 'earlier', page: { data: [message('msg_0', { content: 'old' })], next_cursor: null } });
    expect(texts(earlier)).toEqual(['msg_0:old:completed', 'msg_9:newest:completed']);
  });

  it('takes the newest version of the chat (a replayed chat.updated does not bring an old title back)', () => {
    const renamed = { ...chat, title: 'New', updated_at: '2026-11-25T11:00:00.000Z' };
    const log = run({ type: 'loaded', chat, page: { data: [], next_cursor: null } }, { type: 'chat', chat: renamed });
    expect(chatLogReducer(log, event('chat.updated', { ...chat, title: 'Old', updated_at: '2026-11-25T10:30:00.000Z' })).chat?.title).toBe('New');
    expect(chatLogReducer(log, event('chat.updated', { ...chat, title: 'Newer', updated_at: '2026-11-25T12:00:00.000Z' })).chat?.title).toBe('Newer');
  });
});
