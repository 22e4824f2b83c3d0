/**
 * An agent's reply as the app's user meets it: the agent's runtime (an API key of the account)
 * streams it while the chat is open, and the chat screen shows the text growing with a typing
 * indicator until the reply is complete. The app reads the chat's live stream through React
 * Native's own XMLHttpRequest, as on a device (react-native/test/native-networking.ts).
 */
import { createGatehouse } from '@gatehouse/react-native';
import { fireEvent, render, screen, waitFor } from '@testing-library/react-native';
import { installReactNativeXhr, type ReactNativeXhr } from '../../../react-native/test/native-networking';

// eslint-disable-next-line @typescript-eslint/no-require-imports
jest.mock('expo-secure-store', () => require('./fixtures/memory-secure-store'));

const SERVER = process.env.GATEHOUSE_TEST_URL!;
process.env.EXPO_PUBLIC_GATEHOUSE_URL = SERVER;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const App = (require('../src/App') as typeof import('../src/App')).default;

const email = `expo.stream.${Date.now().toString(36)}@example.com`;
const password = 'Quiet-Harbor-Lantern-9';
const globals = globalThis as { navigator?: { product?: string } };
let rn: ReactNativeXhr;

beforeAll(() => {
  rn = installReactNativeXhr();
  globals.navigator = { product: 'ReactNative' }; // as in an app: the SDK reads streams through XMLHttpRequest
});
afterAll(() => {
  delete globals.navigator;
  rn.uninstall();
});

/** Until the app's stream of `chatId` is open at the server (answered, and its first bytes arrived). */
async function chatStreamOpen(chatId: string): Promise<void> {
  const url = `${SERVER}/v1/chats/${chatId}/stream`;
  await waitFor(() => {
    const ids = rn.events.filter((e) => e.name === 'didReceiveNetworkResponse' && e.args[1] === 200 && String(e.args[3]).startsWith(url)).map((e) => e.args[0]);
    expect(rn.events.some((e) => e.name === 'didReceiveNetworkIncrementalData' && ids.includes(e.args[0]))).toBe(true);
  });
}

it('shows an agent reply growing as it streams, with a typing indicator until it is complete', async () => {
  render(<App />);
  fireEvent.press(await screen.findByText('New here? Create an account'));
  fireEvent.changeText(screen.getByLabelText('Name'), 'Ada Streams');
  fireEvent.changeText(screen.getByLabelText('Email'), email);
  fireEvent.changeText(screen.getByLabelText('Password'), password);
  fireEvent.press(screen.getByRole('button', { name: 'Sign up' }));
  await screen.findByText(`Signed in as ${email}`);
  fireEvent.changeText(await screen.findByLabelText('New agent'), 'Storyteller');
  fireEvent.press(screen.getByRole('button', { name: 'Add agent' }));
  fireEvent.press(await screen.findByText('Storyteller'));
  fireEvent.press(await screen.findByRole('button', { name: 'New chat' }));
  await screen.findByText('Chat with Storyteller');

  // The agent's runtime, elsewhere: an API key the user made for it.
  const owner = createGatehouse({ baseUrl: SERVER });
  await owner.auth.login({ username: email, password });
  const { key } = await owner.apiKeys.create({ name: 'runtime', scopes: ['chats:read', 'chats:write'] });
  const runtime = createGatehouse({ baseUrl: SERVER, apiKey: key! });
  const chat = (await runtime.chats.list()).data[0]!;
  await chatStreamOpen(chat.id);

  fireEvent.changeText(screen.getByLabelText('Message'), 'Tell me a story');
  fireEvent.press(screen.getByRole('button', { name: 'Send' }));
  await screen.findByText('Tell me a story');

  const reply = await runtime.chats.messages.create(chat.id, { role: 'assistant', status: 'streaming' });
  await screen.findByLabelText('assistant is writing');
  await runtime.chats.messages.appendDelta(chat.id, reply.id, { sequence: 1, content: 'Once upon a time' });
  await screen.findByText('Once upon a time');
  await runtime.chats.messages.appendDelta(chat.id, reply.id, { sequence: 2, content: ', a train left Lyon' });
  await screen.findByText('Once upon a time, a train left Lyon');
  expect(screen.getByLabelText('assistant is writing')).toBeTruthy();

  await runtime.chats.messages.appendDelta(chat.id, reply.id, { sequence: 3, content: '.' });
  await runtime.chats.messages.complete(chat.id, reply.id);
  await screen.findByText('Once upon a time, a train left Lyon.');
  await waitFor(() => expect(screen.queryByLabelText('assistant is writing')).toBeNull());
  expect(screen.getByText('Tell me a story')).toBeTruthy();
});
