/**
 * The example's biometric lock as its user meets it, against the live server: sign up, close the
 * app, open it again and find it locked; a cancelled prompt, then "Unlock"; another cold start and
 * "Log out" from the lock screen. Face ID does not run here: expo-local-authentication's native
 * module answers what the test queues (its JavaScript runs as in the app), and expo-secure-store is
 * a Map that outlives each render, as the Keychain outlives the app.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/react-native';

// eslint-disable-next-line @typescript-eslint/no-require-imports
jest.mock('expo-secure-store', () => require('./fixtures/memory-secure-store'));
const mockAnswers: Array<{ success: boolean; error?: string }> = [];
jest.mock('expo-local-authentication/build/ExpoLocalAuthentication', () => ({
  __esModule: true,
  default: {
    authenticateAsync: async () => {
      const answer = mockAnswers.shift();
      if (!answer) throw new Error('the native prompt was shown, but the test expected none');
      return answer;
    },
  },
}));

process.env.EXPO_PUBLIC_GATEHOUSE_URL = process.env.GATEHOUSE_TEST_URL;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const App = (require('../src/App') as typeof import('../src/App')).default;

it('a cold start opens on the lock screen; Unlock after a cancel, Log out on the next one', async () => {
  const email = `lock.${Date.now().toString(36)}@example.com`;
  const first = render(<App />);
  fireEvent.press(await screen.findByText('New here? Create an account'));
  fireEvent.changeText(screen.getByLabelText('Name'), 'Ada Locked');
  fireEvent.changeText(screen.getByLabelText('Email'), email);
  fireEvent.changeText(screen.getByLabelText('Password'), 'Quiet-Harbor-Lantern-9');
  fireEvent.press(screen.getByRole('button', { name: 'Sign up' }));
  await screen.findByText('No agents yet.'); // a fresh sign-up: no prompt
  first.unmount();

  mockAnswers.push({ success: false, error: 'user_cancel' }); // the prompt that opens by itself
  const second = render(<App />);
  await screen.findByText('Locked');
  await waitFor(() => expect(mockAnswers).toEqual([]));
  expect(screen.queryByText(`Signed in as ${email}`)).toBeNull();
  mockAnswers.push({ success: true });
  fireEvent.press(screen.getByRole('button', { name: 'Unlock' }));
  await screen.findByText(`Signed in as ${email}`);
  await screen.findByText('No agents yet.');
  second.unmount();

  mockAnswers.push({ success: false, error: 'user_cancel' });
  render(<App />);
  await screen.findByText('Locked');
  await waitFor(() => expect(mockAnswers).toEqual([]));
  fireEvent.press(screen.getByRole('button', { name: 'Log out' }));
  await screen.findByText('New here? Create an account');
});
