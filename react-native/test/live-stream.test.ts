/**
 * The SDK's live chat stream in the React Native environment, on the path a device takes: React
 * Native's own XMLHttpRequest (test/native-networking.ts) reading Server-Sent Events from the
 * live server through progress events. An agent runtime (an API key of the account) writes
 * streamed replies over ordinary HTTP meanwhile.
 */
import { isGatehouseError, type Schemas, type StreamEvent } from '@gatehouse/sdk';
import { until } from './helpers.js';
import { chatWithRuntime, probeStreamStatus, streamAnswers, streamedReply, streamsLive } from './live-helpers.js';
import { installReactNativeXhr, type ReactNativeXhr } from './native-networking.js';

type Message = Schemas['Message'];
interface Delta {
  chat_id: string;
  message_id: string;
  sequence: number;
  content: string;
}

const globals = globalThis as { navigator?: { product?: string } };
let rn: ReactNativeXhr;

beforeAll(() => {
  rn = installReactNativeXhr();
  // What react-native/Libraries/Core/setUpNavigator.js sets in an app (the jest preset does not):
  // the SDK's `transport: 'auto'` looks at it.
  globals.navigator = { product: 'ReactNative' };
});
afterAll(() => {
  delete globals.navigator;
  rn.uninstall();
});

/** Reads `stream` until `done` says so, then breaks out of the loop. */
async function collect(stream: AsyncIterable<StreamEvent>, done: (events: StreamEvent[]) => boolean): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (done(events)) break;
  }
  return events;
}

const answers = (chatId: string) => streamAnswers(rn, chatId);

it("transport 'auto' reads the stream through React Native's XMLHttpRequest here", async () => {
  const { gh, chatId } = await chatWithRuntime();
  expect(globalThis.XMLHttpRequest).toBe(rn.XMLHttpRequest);
  const stream = gh.chats.stream(chatId);
  const first = collect(stream, () => true);
  await streamsLive(rn, chatId, 1);
  expect(answers(chatId)).toHaveLength(1);
  await gh.chats.messages.create(chatId, { role: 'user', content: 'Hello' });
  expect((await first).map((e) => e.type)).toEqual(['message.created']);
});

it('receives a streamed reply as the runtime writes it: created, each delta in order, completed', async () => {
  const { gh, runtime, chatId } = await chatWithRuntime();
  const stream = gh.chats.stream(chatId);
  const received = collect(stream, (events) => events.some((e) => e.type === 'message.completed'));
  await streamsLive(rn, chatId, 1);

  const pieces = ['Once', ' upon', ' a time', ', in Lyon, ', 'a café ☕', ' closed.'];
  const final = await streamedReply(runtime, chatId, pieces);
  const events = await received;

  expect(events.map((e) => e.type)).toEqual(['message.created', ...pieces.map(() => 'message.delta'), 'message.completed']);
  expect(events[0]!.data).toMatchObject({ id: final.id, role: 'assistant', status: 'streaming', content: '' });
  const deltas = events.slice(1, -1).map((e) => e.data as Delta);
  expect(deltas.map((d) => [d.message_id, d.sequence, d.content])).toEqual(pieces.map((content, i) => [final.id, i + 1, content]));
  expect(events.at(-1)!.data).toEqual(final);
  expect(final).toMatchObject({ status: 'completed', content: pieces.join('') });
  // In stream order, each once.
  const sequences = events.map((e) => e.sequence);
  expect(sequences).toEqual([...new Set(sequences)].sort((a, b) => a - b));
  expect(stream.lastEventId).toBe(String(sequences.at(-1)));
  // Breaking out of the loop ended the native request.
  await until('the native request to end', () => rn.inFlight() === 0);
});

it('resumes with lastEventId after close(): what was written meanwhile, without a gap or a repeat', async () => {
  const { gh, runtime, chatId } = await chatWithRuntime();
  const first = gh.chats.stream(chatId);
  const head = collect(first, (events) => events.filter((e) => e.type === 'message.delta').length === 2);
  await streamsLive(rn, chatId, 1);
  const reply = await runtime.chats.messages.create(chatId, { role: 'assistant', status: 'streaming' });
  const pieces = ['The', ' train', ' leaves', ' at', ' nine.'];
  for (const [i, content] of pieces.slice(0, 2).entries()) await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: i + 1, content });
  const before = await head;
  first.close();
  await until('the first stream to end', () => rn.inFlight() === 0);

  // Written while no stream is open.
  for (const [i, content] of pieces.slice(2).entries()) await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: i + 3, content });
  const final = await runtime.chats.messages.complete(chatId, reply.id);
  await gh.chats.update(chatId, { title: 'Trains' });

  const second = gh.chats.stream(chatId, { lastEventId: first.lastEventId });
  const after = await collect(second, (events) => events.some((e) => e.type === 'chat.updated'));
  expect(answers(chatId)).toHaveLength(2);

  expect(before.map((e) => e.type)).toEqual(['message.created', 'message.delta', 'message.delta']);
  expect(after.map((e) => e.type)).toEqual(['message.delta', 'message.delta', 'message.delta', 'message.completed', 'chat.updated']);
  expect(first.lastEventId).toBe(String(before.at(-1)!.sequence));
  const all = [...before, ...after];
  const sequences = all.map((e) => e.sequence);
  expect(sequences).toEqual([...new Set(sequences)].sort((a, b) => a - b));
  const deltas = all.filter((e) => e.type === 'message.delta').map((e) => e.data as Delta);
  expect(deltas.map((d) => d.sequence)).toEqual([1, 2, 3, 4, 5]);
  expect(deltas.map((d) => d.content).join('')).toBe(final.content);
  expect(after.at(-1)!.data).toMatchObject({ id: chatId, title: 'Trains' });
});

it("breaking out of the loop frees the server's slot: six streams in a row under the cap of five, never a 429", async () => {
  const { gh, chatId, key } = await chatWithRuntime();
  // The cap is real: five streams held open leave no room for a sixth.
  const held = Array.from({ length: 5 }, () => gh.chats.stream(chatId));
  const loops = held.map((stream) => collect(stream, () => false));
  await streamsLive(rn, chatId, 5);
  expect(await probeStreamStatus(chatId, key)).toEqual({ status: 429, code: 'too_many_streams' });
  for (const stream of held) stream.close();
  expect(await Promise.all(loops)).toEqual([[], [], [], [], []]);
  await until('the held streams to end', () => rn.inFlight() === 0);

  for (let i = 1; i <= 6; i++) {
    const got = collect(gh.chats.stream(chatId), () => true);
    await streamsLive(rn, chatId, 5 + i);
    await gh.chats.messages.create(chatId, { role: 'user', content: `message ${i}` });
    expect((await got).map((e) => (e.data as Message).content)).toEqual([`message ${i}`]);
    await until(`stream ${i}'s native request to end`, () => rn.inFlight() === 0);
  }
  expect(answers(chatId).map((a) => a.status)).toEqual(Array(11).fill(200));
});

it('throws the 404 of a chat that is not there, as every other call does', async () => {
  const { gh } = await chatWithRuntime();
  const error = await collect(gh.chats.stream('cht_01m00000000000000000000000'), () => true).catch((e: unknown) => e);
  expect(isGatehouseError(error, 'not_found')).toBe(true);
  expect(rn.inFlight()).toBe(0);
});

describe('a stream closed before the native side has given its request id', () => {
  // On a device the request id comes back from the native module later, as its own task: until
  // then XMLHttpRequest.abort() has nothing to cancel (native-networking.test.ts shows it), so the
  // SDK aborts such a request at its first event. The first test closes streams in that window and
  // records what became of their requests; the second checks that none stayed open.
  let outcome: { inFlight: number; sixth: { status: number; code?: string } } | undefined;

  it('closes streams in that window: their iteration ends, and the request id arrives afterwards', async () => {
    const { gh, chatId, key } = await chatWithRuntime();
    // RN's XMLHttpRequest keeps the id in `_requestId`; the native callback hands it over through `__didCreateRequest`.
    type Watched = { _requestId: number | null; idArrived: boolean };
    const made: Watched[] = [];
    const Original = rn.XMLHttpRequest;
    (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = class extends Original {
      idArrived = false;
      constructor() {
        super();
        made.push(this as unknown as Watched);
      }
      __didCreateRequest(requestId: number): void {
        this.idArrived = true;
        (Original.prototype as unknown as { __didCreateRequest(id: number): void }).__didCreateRequest.call(this, requestId);
      }
    };
    try {
      for (let i = 0; i < 5; i++) {
        const stream = gh.chats.stream(chatId);
        const next = stream[Symbol.asyncIterator]().next();
        const inFlight = rn.inFlight();
        // Microtasks only, so the request id (a macrotask, as the native callback is) cannot come meanwhile.
        for (let spins = 0; rn.inFlight() === inFlight; spins++) {
          if (spins > 10_000) throw new Error('the SDK never sent the request');
          await Promise.resolve();
        }
        const xhr = made.at(-1)!;
        expect(xhr._requestId).toBeNull();
        stream.close();
        await expect(next).resolves.toEqual({ done: true, value: undefined });
        await until('the request id', () => xhr.idArrived);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      outcome = { inFlight: rn.inFlight(), sixth: await probeStreamStatus(chatId, key) };
    } finally {
      (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = Original;
      // uninstall() cancels whatever the native side still has open.
      rn.uninstall();
      rn = installReactNativeXhr();
    }
  });

  it('cancels each native request once its id arrives, so the server frees the slot', () => {
    expect(outcome).toBeDefined();
    expect(outcome!.inFlight).toBe(0);
    expect(outcome!.sixth.status).toBe(200);
  });
});
