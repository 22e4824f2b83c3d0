/**
 * Guest mode as the app's user meets it, against the live server (ANONYMOUS_SIGN_IN on): "Try
 * without an account", an agent made as a guest, "Save your account" refused for an address that
 * has one, then saved with a new address and a password, and the agent still there after logging
 * out and in with them. A guest logging out is warned first: it has no way back in.
 */
import { createGatehouse } from '@gatehouse/react-native';
import { act, fireEvent, render, screen } from '@testing-library/react-native';
import { Alert, type AlertButton } from 'react-native';

// eslint-disable-next-line @typescript-eslint/no-require-imports
jest.mock('expo-secure-store', () => require('./fixtures/memory-secure-store'));

const SERVER = process.env.GATEHOUSE_TEST_URL!;
process.env.EXPO_PUBLIC_GATEHOUSE_URL = SERVER;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const App = (require('../src/App') as typeof import('../src/App')).default;

const password = 'Quiet-Harbor-Lantern-9';

it('tries the app as a guest, then saves the account and keeps its agents', async () => {
  const taken = `expo.taken.${Date.now().toString(36)}@example.com`;
  await createGatehouse({ baseUrl: SERVER }).auth.register({ email: taken, password, name: 'Someone Else' });
  const email = `expo.guest.${Date.now().toString(36)}@example.com`;

  render(<App />);
  fireEvent.press(await screen.findByRole('button', { name: 'Try without an account' }));
  await screen.findByText('You are trying the app as a guest.');
  fireEvent.changeText(await screen.findByLabelText('New agent'), 'Guest helper');
  fireEvent.press(screen.getByRole('button', { name: 'Add agent' }));
  await screen.findByText('Guest helper');

  fireEvent.press(screen.getByRole('button', { name: 'Save your account' }));
  await screen.findByText('Your agents and chats stay as they are.', { exact: false });
  fireEvent.changeText(screen.getByLabelText('Email'), taken);
  fireEvent.press(screen.getByRole('button', { name: 'Save' }));
  await screen.findByText(/^An account with this email already exists/);

  fireEvent.changeText(screen.getByLabelText('Name'), 'Ada Saved');
  fireEvent.changeText(screen.getByLabelText('Email'), email);
  fireEvent.changeText(screen.getByLabelText('Password (optional)'), password);
  fireEvent.press(screen.getByRole('button', { name: 'Save' }));
  await screen.findByText(`Signed in as ${email}`);
  await screen.findByText('Guest helper');

  fireEvent.press(screen.getByRole('button', { name: 'Log out' })); // no longer a guest: no warning
  fireEvent.changeText(await screen.findByLabelText('Email'), email);
  fireEvent.changeText(screen.getByLabelText('Password'), password);
  fireEvent.press(screen.getByRole('button', { name: 'Log in' }));
  await screen.findByText(`Signed in as ${email}`);
  await screen.findByText('Guest helper');
});

it('warns a guest that logging out leaves its agents and chats behind', async () => {
  (jest.requireMock('expo-secure-store') as { clearForTest: () => void }).clearForTest(); // a fresh install
  const alert = jest.spyOn(Alert, 'alert').mockImplementation(() => undefined);
  render(<App />);
  fireEvent.press(await screen.findByRole('button', { name: 'Try without an account' }));
  await screen.findByText('You are trying the app as a guest.');
  fireEvent.press(screen.getByRole('button', { name: 'Log out' }));
  expect(alert).toHaveBeenCalledWith('Leave the guest account?', expect.any(String), expect.any(Array));
  expect(screen.getByText('You are trying the app as a guest.')).toBeTruthy();
  const buttons = alert.mock.calls[0]![2] as AlertButton[];
  await act(async () => buttons.find((button) => button.text === 'Log out')!.onPress!());
  await screen.findByRole('button', { name: 'Try without an account' });
});
