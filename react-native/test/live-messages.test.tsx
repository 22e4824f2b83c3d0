/**
 * useMessages kept live by the chat's stream, under jest-expo, on React Native's own
 * XMLHttpRequest (test/native-networking.ts) against the live server: an agent runtime streams
 * replies while the hook is mounted, other clients post, the list is refreshed mid-reply.
 */
import type { Schemas } from '@gatehouse/sdk';
import { act, render, screen, waitFor } from '@testing-library/react-native';
import { StrictMode, useEffect } from 'react';
import { AppState, Text, View } from 'react-native';
import { GatehouseProvider, useMessages, type MessagesState } from '../src/index.js';
import { SERVER, until } from './helpers.js';
import { chatWithRuntime, streamAnswers, streamsLive, type ChatWithRuntime } from './live-helpers.js';
import { installReactNativeXhr, type ReactNativeXhr } from './native-networking.js';

type Message = Schemas['Message'];

const globals = globalThis as { navigator?: { product?: string } };
let rn: ReactNativeXhr;

beforeAll(() => {
  rn = installReactNativeXhr();
  globals.navigator = { product: 'ReactNative' }; // as setUpNavigator.js in an app: the SDK picks XMLHttpRequest
});
afterAll(() => {
  delete globals.navigator;
  rn.uninstall();
});
beforeEach(() => (AppState.addEventListener as jest.Mock).mockClear());

/** A chat screen in miniature: one line per message, `role status: content`, newest first. */
function Chat({ chatId, onState }: { chatId: string; onState: (state: MessagesState) => void }) {
  const messages = useMessages(chatId);
  useEffect(() => {
    onState(messages);
  });
  return (
    <View>
      <Text testID="live">{messages.live ? 'live' : 'not live'}</Text>
      {messages.items.map((m) => (
        <Text key={m.id} testID="message">{`${m.role} ${m.status}: ${m.content}`}</Text>
      ))}
    </View>
  );
}

const lines = () => screen.queryAllByTestId('message').map((node) => node.props.children as string);

/** Mounts the chat (under StrictMode, whose effects run twice) and records every state it renders. */
function mount({ chatId, storage }: ChatWithRuntime) {
  const states: MessagesState[] = [];
  const view = render(
    <StrictMode>
      <GatehouseProvider baseUrl={SERVER} tokenStore={storage}>
        <Chat chatId={chatId} onState={(s) => states.push(s)} />
      </GatehouseProvider>
    </StrictMode>,
  );
  const latest = () => states.at(-1)!;
  /** Every content `id` showed, in order, repeats folded. */
  const contentsOf = (id: string) =>
    states.map((s) => s.items.find((m) => m.id === id)?.content).filter((c, i, all): c is string => c !== undefined && c !== all[i - 1]);
  return { view, states, latest, contentsOf };
}

async function whenLive(chat: ChatWithRuntime, count = 1) {
  await waitFor(() => expect(screen.getByTestId('live').props.children).toBe('live'));
  await streamsLive(rn, chat.chatId, count);
}

/** The listener the provider gave React Native's AppState (the mock jest-expo installs). */
function comeToForeground(): void {
  const calls = (AppState.addEventListener as jest.Mock).mock.calls.filter(([type]) => type === 'change');
  const listener = calls.at(-1)?.[1] as ((state: string) => void) | undefined;
  if (!listener) throw new Error('the provider did not listen to AppState');
  act(() => listener('active'));
}

it('shows a streamed reply growing delta by delta, then completed; messages posted elsewhere appear once', async () => {
  const chat = await chatWithRuntime();
  const { runtime, chatId } = chat;
  await chat.gh.chats.messages.create(chatId, { role: 'user', content: 'Tell me a story' });
  const { view, latest, contentsOf } = mount(chat);
  await whenLive(chat);
  await waitFor(() => expect(lines()).toEqual(['user completed: Tell me a story']));
  // One stream, although StrictMode ran the effect twice, and it is React Native's XMLHttpRequest.
  expect(streamAnswers(rn, chatId)).toHaveLength(1);
  expect(rn.inFlight()).toBe(1);

  const reply = await runtime.chats.messages.create(chatId, { role: 'assistant', status: 'streaming' });
  await waitFor(() => expect(lines()[0]).toBe('assistant streaming: '));
  const pieces = ['Once', ' upon', ' a time', ' a café', ' ☕ opened.'];
  let text = '';
  for (const [i, piece] of pieces.entries()) {
    await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: i + 1, content: piece });
    text += piece;
    await waitFor(() => expect(lines()[0]).toBe(`assistant streaming: ${text}`));
  }
  // A retried delta changes nothing on the server, and the stream does not show it twice either.
  await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 2, content: ' upon' });
  const final = await runtime.chats.messages.complete(chatId, reply.id);
  await waitFor(() => expect(lines()[0]).toBe(`assistant completed: ${text}`));
  expect(latest().items[0]).toEqual(final);
  expect(contentsOf(reply.id)).toEqual(['', 'Once', 'Once upon', 'Once upon a time', 'Once upon a time a café', text]);

  // Posted by another client: it appears on its own. Sent from here: it shows once, though both
  // send()'s answer and the stream bring it.
  await runtime.chats.messages.create(chatId, { role: 'user', content: 'Posted from the web' });
  await waitFor(() => expect(lines()[0]).toBe('user completed: Posted from the web'));
  await act(async () => void (await latest().send('And from the phone')));
  await new Promise((resolve) => setTimeout(resolve, 100)); // the stream's copy has arrived too
  expect(lines()).toEqual(['user completed: And from the phone', 'user completed: Posted from the web', `assistant completed: ${text}`, 'user completed: Tell me a story']);

  // What the server holds is what the list shows after a refresh.
  await act(() => latest().refresh());
  expect(lines()).toHaveLength(4);
  expect(latest().items).toEqual((await chat.gh.chats.messages.list(chatId)).data);

  view.unmount();
  await until('the stream to close', () => rn.inFlight() === 0);
});

it('loses nothing and doubles nothing when the list is refreshed in the middle of a reply', async () => {
  const chat = await chatWithRuntime();
  const { runtime, chatId } = chat;
  const { latest, contentsOf, view } = mount(chat);
  await whenLive(chat);
  const reply = await runtime.chats.messages.create(chatId, { role: 'assistant', status: 'streaming' });
  await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 1, content: 'The train' });
  await waitFor(() => expect(lines()).toEqual(['assistant streaming: The train']));

  // A refresh whose page is fetched while more deltas are being written and streamed.
  const refreshed = act(() => latest().refresh());
  await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 2, content: ' leaves' });
  await refreshed;
  await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 3, content: ' at nine' });
  await waitFor(() => expect(lines()).toEqual(['assistant streaming: The train leaves at nine']));
  const again = act(() => latest().refresh());
  await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 4, content: '.' });
  await again;
  await runtime.chats.messages.complete(chatId, reply.id);
  await waitFor(() => expect(lines()).toEqual(['assistant completed: The train leaves at nine.']));
  // Every text it ever showed was the reply so far: never a piece twice, never one skipped for good.
  const final = 'The train leaves at nine.';
  for (const content of contentsOf(reply.id)) expect(final.startsWith(content)).toBe(true);
  expect(contentsOf(reply.id).at(-1)).toBe(final);
  view.unmount();
});

it('opened in the middle of a reply, shows the text fetched again as it grows, and the completed reply', async () => {
  const chat = await chatWithRuntime();
  const { runtime, chatId } = chat;
  const reply = await runtime.chats.messages.create(chatId, { role: 'assistant', status: 'streaming' });
  await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 1, content: 'Already' });
  await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 2, content: ' written,' });
  const { contentsOf, view } = mount(chat);
  await whenLive(chat);
  await waitFor(() => expect(lines()).toEqual(['assistant streaming: Already written,']));

  // This stream never saw the first deltas, so it cannot know which ones the fetched text holds:
  // its deltas have the newest page fetched again (at most once a second) rather than appended.
  await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 3, content: ' then' });
  await waitFor(() => expect(lines()).toEqual(['assistant streaming: Already written, then']));
  await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 4, content: ' streamed' });
  await waitFor(() => expect(lines()).toEqual(['assistant streaming: Already written, then streamed']));
  await runtime.chats.messages.complete(chatId, reply.id);
  await waitFor(() => expect(lines()).toEqual(['assistant completed: Already written, then streamed']));
  for (const content of contentsOf(reply.id)) expect('Already written, then streamed'.startsWith(content)).toBe(true);

  // A reply that starts while it is open grows delta by delta again.
  const next = await runtime.chats.messages.create(chatId, { role: 'assistant', status: 'streaming' });
  await runtime.chats.messages.appendDelta(chatId, next.id, { sequence: 1, content: 'Live' });
  await waitFor(() => expect(lines()[0]).toBe('assistant streaming: Live'));
  view.unmount();
});

it('follows the new chat when chatId changes, and reconnects when the app comes back to the foreground, missing nothing', async () => {
  const first = await chatWithRuntime();
  const other = await first.gh.chats.create({ agent_id: (await first.gh.chats.get(first.chatId)).agent_id, title: 'Other' });
  const states: MessagesState[] = [];
  const tree = (chatId: string) => (
    <GatehouseProvider baseUrl={SERVER} tokenStore={first.storage}>
      <Chat chatId={chatId} onState={(s) => states.push(s)} />
    </GatehouseProvider>
  );
  const view = render(tree(first.chatId));
  await whenLive(first);
  view.rerender(tree(other.id));
  await streamsLive(rn, other.id, 1);
  await until('only the new chat’s stream open', () => rn.inFlight() === 1);
  await first.runtime.chats.messages.create(first.chatId, { role: 'user', content: 'in the first chat' });
  await first.runtime.chats.messages.create(other.id, { role: 'user', content: 'in the other chat' });
  await waitFor(() => expect(lines()).toEqual(['user completed: in the other chat']));

  // Foreground: the stream is opened again after the last event it handed out.
  const reply = await first.runtime.chats.messages.create(other.id, { role: 'assistant', status: 'streaming' });
  await waitFor(() => expect(lines()[0]).toBe('assistant streaming: '));
  comeToForeground();
  await first.runtime.chats.messages.appendDelta(other.id, reply.id, { sequence: 1, content: 'Written while' });
  await first.runtime.chats.messages.appendDelta(other.id, reply.id, { sequence: 2, content: ' reconnecting' });
  await streamsLive(rn, other.id, 2);
  await first.runtime.chats.messages.complete(other.id, reply.id);
  await waitFor(() => expect(lines()).toEqual(['assistant completed: Written while reconnecting', 'user completed: in the other chat']));
  const seen = states.map((s) => s.items.find((m: Message) => m.id === reply.id)?.content).filter((c): c is string => c !== undefined);
  for (const content of seen) expect('Written while reconnecting'.startsWith(content)).toBe(true);
  expect(rn.inFlight()).toBe(1);
  view.unmount();
  await until('the stream to close', () => rn.inFlight() === 0);
});
