/** What a chat stream's events do to the shown messages, and how live messages and fetched pages merge (pure). */
import type { Schemas, StreamEvent } from '@gatehouse/sdk';
import { applyChatEvent, mergeLiveMessages, mergeNewest, moreAdvanced, NO_LIVE_MESSAGES, type LiveMessages } from '../src/apply-chat-event.js';

type Message = Schemas['Message'];

let sequence = 0;
function event(type: string, data: unknown): StreamEvent {
  sequence++;
  return { id: `evt_${sequence}`, type, created_at: '2026-11-25T10:00:00.000Z', data, sequence };
}

function message(id: string, content: string, status: Message['status'] = 'completed', role: Message['role'] = 'user'): Message {
  return { id, chat_id: 'cht_1', role, content, status, delta_sequence: 0, created_at: '2026-11-25T10:00:00.000Z' };
}

const created = (m: Message) => event('message.created', m);
const completed = (m: Message) => event('message.completed', m);
const delta = (messageId: string, seq: number, content: string) => event('message.delta', { chat_id: 'cht_1', message_id: messageId, sequence: seq, content });

/** Applies the events in turn; the resync flags they raised, in order. */
function run(events: StreamEvent[], from: LiveMessages = NO_LIVE_MESSAGES): { live: LiveMessages; resyncs: boolean[] } {
  let live = from;
  const resyncs: boolean[] = [];
  for (const e of events) {
    const result = applyChatEvent(live, e);
    live = result.live;
    resyncs.push(result.resync);
  }
  return { live, resyncs };
}

const contentOf = (live: LiveMessages, id: string) => live.get(id)?.message.content;

describe('applyChatEvent', () => {
  it('adds a created message, grows it by its deltas in sequence order, and replaces it with the completed one', () => {
    const reply = message('msg_02', '', 'streaming', 'assistant');
    const { live, resyncs } = run([created(message('msg_01', 'Hi')), created(reply), delta('msg_02', 1, 'Once'), delta('msg_02', 2, ' upon'), delta('msg_02', 3, ' a time')]);
    expect(resyncs).toEqual([false, false, false, false, false]);
    expect(contentOf(live, 'msg_01')).toBe('Hi');
    expect(live.get('msg_02')).toEqual({ message: { ...reply, content: 'Once upon a time', delta_sequence: 3 }, applied: 3 });

    const done = run([completed({ ...reply, content: 'Once upon a time.', status: 'completed' })], live).live;
    expect(done.get('msg_02')!.message).toEqual({ ...reply, content: 'Once upon a time.', status: 'completed' });
  });

  it('ignores a delta already applied, one after the completion, and a replayed created', () => {
    const reply = message('msg_02', 'Pre', 'streaming', 'assistant');
    const start = run([created(reply), delta('msg_02', 1, 'lude')]).live;
    const again = run([delta('msg_02', 1, 'lude'), created(reply)], start);
    expect(again.live).toBe(start);
    expect(again.resyncs).toEqual([false, false]);
    expect(contentOf(start, 'msg_02')).toBe('Prelude');

    const done = run([completed({ ...reply, content: 'Prelude', status: 'completed' })], start).live;
    const late = run([delta('msg_02', 2, '!!')], done);
    expect(late.live).toBe(done);
    expect(late.resyncs).toEqual([false]);
  });

  it('asks for a resync on a delta of a message it never saw created, and changes nothing', () => {
    const start = run([created(message('msg_01', 'Hi'))]).live;
    const result = applyChatEvent(start, delta('msg_09', 4, 'middle'));
    expect(result).toEqual({ live: start, resync: true });
  });

  it('after a gap in the deltas stops appending (the text would be wrong) and asks for a resync, until the completion', () => {
    const reply = message('msg_02', '', 'streaming', 'assistant');
    const { live, resyncs } = run([created(reply), delta('msg_02', 1, 'A'), delta('msg_02', 3, 'C'), delta('msg_02', 4, 'D')]);
    expect(resyncs).toEqual([false, false, true, true]);
    expect(live.get('msg_02')).toEqual({ message: { ...reply, content: 'A', delta_sequence: 1 }, applied: null });
    const done = run([completed({ ...reply, content: 'ABCD', status: 'completed' })], live);
    expect(done.live.get('msg_02')!.message.content).toBe('ABCD');
    expect(done.resyncs).toEqual([false]);
  });

  it('ignores other events and data that is not what the type says', () => {
    const start = run([created(message('msg_01', 'Hi'))]).live;
    for (const e of [
      event('chat.updated', { id: 'cht_1', title: 'T' }),
      event('chat.deleted', { id: 'cht_1' }),
      event('message.created', { id: 'msg_03' }),
      event('message.delta', { message_id: 'msg_01', sequence: 'one', content: 'x' }),
      event('message.completed', null),
    ]) {
      expect(applyChatEvent(start, e)).toEqual({ live: start, resync: false });
    }
  });
});

describe('moreAdvanced', () => {
  it('prefers the completed copy, then the longer text, then the second', () => {
    const partial = message('msg_1', 'Once upon', 'streaming');
    const shorter = message('msg_1', 'Once', 'streaming');
    const done = message('msg_1', 'Once upon a time', 'completed');
    expect(moreAdvanced(partial, shorter)).toBe(partial);
    expect(moreAdvanced(shorter, partial)).toBe(partial);
    expect(moreAdvanced(done, partial)).toBe(done);
    expect(moreAdvanced(message('msg_1', 'Once upon a time and more', 'streaming'), done)).toBe(done);
    const same = message('msg_1', 'Once', 'streaming');
    expect(moreAdvanced(shorter, same)).toBe(same);
  });
});

describe('mergeLiveMessages', () => {
  const page = [message('msg_05', 'five'), message('msg_04', 'four'), message('msg_03', 'three')];

  it('returns the pages themselves when nothing was announced', () => {
    expect(mergeLiveMessages(page, NO_LIVE_MESSAGES, true)).toBe(page);
  });

  it('puts announced messages the pages lack in their place by id, and shows one copy of each', () => {
    const live = run([created(message('msg_07', 'seven')), created(message('msg_06', 'six')), created(message('msg_05', 'five'))]).live;
    expect(mergeLiveMessages(page, live, true).map((m) => m.content)).toEqual(['seven', 'six', 'five', 'four', 'three']);
  });

  it('leaves an announced message older than the oldest fetched to the page that holds it, unless there is none', () => {
    const live = run([created(message('msg_02', 'two'))]).live;
    expect(mergeLiveMessages(page, live, true).map((m) => m.id)).toEqual(['msg_05', 'msg_04', 'msg_03']);
    expect(mergeLiveMessages(page, live, false).map((m) => m.id)).toEqual(['msg_05', 'msg_04', 'msg_03', 'msg_02']);
    expect(mergeLiveMessages([], live, false).map((m) => m.id)).toEqual(['msg_02']);
  });

  it('loses nothing and doubles nothing when a page fetched mid-stream replaces the list', () => {
    // The stream saw the reply created and its first delta; a refresh then fetched the chat while
    // the server already held two deltas; the third arrives after the refresh.
    const reply = message('msg_06', '', 'streaming', 'assistant');
    let live = run([created(reply), delta('msg_06', 1, 'Once')]).live;
    const refreshed = [{ ...reply, content: 'Once upon' }, ...page];
    expect(mergeLiveMessages(refreshed, live, true)[0]!.content).toBe('Once upon');
    live = run([delta('msg_06', 2, ' upon')], live).live;
    expect(mergeLiveMessages(refreshed, live, true)[0]!.content).toBe('Once upon');
    live = run([delta('msg_06', 3, ' a time')], live).live;
    expect(mergeLiveMessages(refreshed, live, true).map((m) => m.content)).toEqual(['Once upon a time', 'five', 'four', 'three']);
    live = run([completed({ ...reply, content: 'Once upon a time', status: 'completed' })], live).live;
    expect(mergeLiveMessages(refreshed, live, true)[0]).toMatchObject({ content: 'Once upon a time', status: 'completed' });
  });
});

describe('mergeNewest', () => {
  it('updates the messages it holds, adds the new ones in order, and keeps the older pages', () => {
    const shown = [message('msg_05', 'fi', 'streaming'), message('msg_03', 'three'), message('msg_01', 'one')];
    const fresh = [message('msg_06', 'six'), message('msg_05', 'five', 'streaming'), message('msg_04', 'four')];
    expect(mergeNewest(shown, fresh).map((m) => [m.id, m.content])).toEqual([
      ['msg_06', 'six'],
      ['msg_05', 'five'],
      ['msg_04', 'four'],
      ['msg_03', 'three'],
      ['msg_01', 'one'],
    ]);
  });

  it('never goes back to an older copy of a message', () => {
    const shown = [message('msg_05', 'five, done')];
    expect(mergeNewest(shown, [message('msg_05', 'fi', 'streaming')])).toEqual(shown);
  });
});
