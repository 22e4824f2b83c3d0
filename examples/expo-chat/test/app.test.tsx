/**
 * The example app as its user meets it, against the live server: sign up, add an agent, open a
 * chat, send messages, log out, log in again and find it all there. The phone's Keychain does not
 * run here, so expo-secure-store is a Map (the package's chunked store runs on top of it as on a
 * device).
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/react-native';

// eslint-disable-next-line @typescript-eslint/no-require-imports
jest.mock('expo-secure-store', () => require('./fixtures/memory-secure-store'));

process.env.EXPO_PUBLIC_GATEHOUSE_URL = process.env.GATEHOUSE_TEST_URL;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const App = (require('../src/App') as typeof import('../src/App')).default;

const email = `expo.${Date.now().toString(36)}@example.com`;
const password = 'Quiet-Harbor-Lantern-9';

it('signs up, adds an agent, chats, logs out and logs back in', async () => {
  render(<App />);
  fireEvent.press(await screen.findByText('New here? Create an account'));
  fireEvent.changeText(screen.getByLabelText('Name'), 'Ada Mobile');
  fireEvent.changeText(screen.getByLabelText('Email'), email);
  fireEvent.changeText(screen.getByLabelText('Password'), password);
  fireEvent.press(screen.getByRole('button', { name: 'Sign up' }));

  await screen.findByText(`Signed in as ${email}`);
  await screen.findByText('No agents yet.');
  fireEvent.changeText(screen.getByLabelText('New agent'), 'Travel helper');
  fireEvent.press(screen.getByRole('button', { name: 'Add agent' }));
  fireEvent.press(await screen.findByText('Travel helper'));

  fireEvent.press(await screen.findByRole('button', { name: 'New chat' }));
  await screen.findByText('Chat with Travel helper');
  fireEvent.changeText(screen.getByLabelText('Message'), 'Find me a train to Lyon');
  fireEvent.press(screen.getByRole('button', { name: 'Send' }));
  await screen.findByText('Find me a train to Lyon');
  expect(screen.getByLabelText('Message').props.value).toBe('');

  fireEvent.press(screen.getByRole('button', { name: 'Back' }));
  await screen.findByText('Chat with Travel helper');
  fireEvent.press(screen.getByRole('button', { name: 'Back' }));
  fireEvent.press(await screen.findByRole('button', { name: 'Log out' }));
  await screen.findByText('New here? Create an account');

  fireEvent.changeText(screen.getByLabelText('Email'), email);
  fireEvent.changeText(screen.getByLabelText('Password'), 'not the password');
  fireEvent.press(screen.getByRole('button', { name: 'Log in' }));
  await screen.findByText('The email or password is not correct.');

  fireEvent.changeText(screen.getByLabelText('Password'), password);
  fireEvent.press(screen.getByRole('button', { name: 'Log in' }));
  fireEvent.press(await screen.findByText('Travel helper'));
  fireEvent.press(await screen.findByText('Chat with Travel helper'));
  await screen.findByText('Find me a train to Lyon');
});
