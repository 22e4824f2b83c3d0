/**
 * Signing in with a mailed code as the app's user meets it, against the live server: signing up
 * by code (a wrong code, a new code that retires the old one), logging in by code and by the
 * mailed link opening the app, each with the account's second factor, and the mail limit's wait.
 * The mails are read from the server's log (test/fixtures/inbox.ts); a link "opens the app" as
 * React Native's Linking delivers a URL to the listener App.tsx added.
 */
import { createGatehouse } from '@gatehouse/react-native';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react-native';
import { Linking } from 'react-native';
import { mailedCode, mailedCodes, mailedLink, totpCode } from './fixtures/inbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
jest.mock('expo-secure-store', () => require('./fixtures/memory-secure-store'));

const SERVER = process.env.GATEHOUSE_TEST_URL!;
process.env.EXPO_PUBLIC_GATEHOUSE_URL = SERVER;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const App = (require('../src/App') as typeof import('../src/App')).default;

// Each test opens the app as freshly installed: no session from the test before (it would be locked).
beforeEach(() => (jest.requireMock('expo-secure-store') as { clearForTest: () => void }).clearForTest());

let counter = 0;
const uniqueEmail = (what: string) => `expo.${what}.${++counter}.${Date.now().toString(36)}@example.com`;
const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

/** The phone opens `url` with the app running (the listener App.tsx gave Linking.addEventListener). */
async function openLink(url: string) {
  const listener = jest.mocked(Linking.addEventListener).mock.calls.at(-1)![1] as (event: { url: string }) => void;
  await act(async () => listener({ url }));
}

it('signs up with an email code: a wrong code is refused, a new code retires the old one', async () => {
  const email = uniqueEmail('code');
  render(<App />);
  fireEvent.press(await screen.findByText('New here? Create an account'));
  fireEvent.press(screen.getByRole('button', { name: 'Sign up with an email code instead' }));
  await screen.findByText('Sign up with an email code');
  fireEvent.changeText(screen.getByLabelText('Email'), email);
  fireEvent.press(screen.getByRole('button', { name: 'Email me a code' }));
  await screen.findByText(`A code is on its way to ${email}.`, { exact: false });

  // The keyboard's suggestion, or the person's six digits: offered from the mail, sent at the sixth.
  const field = screen.getByLabelText('Sign-in code');
  expect(field.props).toMatchObject({ textContentType: 'oneTimeCode', autoComplete: 'one-time-code', keyboardType: 'number-pad' });
  const first = await mailedCode(email, 1);
  fireEvent.changeText(field, otherCode(first));
  await screen.findByText(/^The code is not correct/);

  fireEvent.press(screen.getByRole('button', { name: 'Send a new code' }));
  await screen.findByText('The codes and links sent before no longer work.', { exact: false });
  expect(screen.queryByText(/^The code is not correct/)).toBeNull();
  const second = await mailedCode(email, 2);
  fireEvent.changeText(screen.getByLabelText('Sign-in code'), first);
  await screen.findByText(/^The code is not correct/);
  fireEvent.changeText(screen.getByLabelText('Sign-in code'), ` ${second.slice(0, 3)} ${second.slice(3)}`); // pasted with spaces
  await screen.findByText(`Signed in as ${email}`);
  await screen.findByText('No agents yet.');
});

it('logs in by code and by the mailed link, each time with the authenticator app or a recovery code', async () => {
  // An account with a password and an authenticator app, made elsewhere (the web dashboard, say).
  const email = uniqueEmail('mfa');
  const password = 'Quiet-Harbor-Lantern-9';
  const web = createGatehouse({ baseUrl: SERVER });
  await web.auth.register({ email, password, name: 'Ada Two-Factor' });
  await web.auth.verifyEmail({ token: new URL(await mailedLink(email, 'verify-email')).searchParams.get('token')! });
  await web.auth.login({ username: email, password });
  const { otpauth_url: otpauth } = await web.me.mfa.enrolTotp({ password });
  // Confirmed with the previous 30 s step's code (taken too): the app's sign-in uses the current one.
  const { recovery_codes: recoveryCodes } = await web.me.mfa.confirmTotp({ code: totpCode(otpauth, -1) });

  render(<App />);
  fireEvent.changeText(await screen.findByLabelText('Email'), email);
  fireEvent.press(screen.getByRole('button', { name: 'Email me a sign-in code' }));
  await screen.findByText('Log in with an email code');
  expect(screen.getByLabelText('Email').props.value).toBe(email);
  fireEvent.press(screen.getByRole('button', { name: 'Email me a code' }));
  await screen.findByText(`A code is on its way, if an account uses ${email}.`, { exact: false });
  fireEvent.changeText(screen.getByLabelText('Sign-in code'), await mailedCode(email, 1));

  await screen.findByText('Two-step verification');
  const authenticator = screen.getByLabelText('Authenticator code');
  expect(authenticator.props).toMatchObject({ textContentType: 'oneTimeCode', autoComplete: 'one-time-code' });
  fireEvent.changeText(authenticator, totpCode(otpauth));
  fireEvent.press(screen.getByRole('button', { name: 'Verify' }));
  await screen.findByText(`Signed in as ${email}`);

  fireEvent.press(screen.getByRole('button', { name: 'Log out' }));
  fireEvent.press(await screen.findByRole('button', { name: 'Email me a sign-in code' }));
  fireEvent.changeText(screen.getByLabelText('Email'), email);
  fireEvent.press(screen.getByRole('button', { name: 'Email me a code' }));
  await mailedCode(email, 2);
  const link = await mailedLink(email, 'sign-in');
  expect(link).toMatch(/^gatehouse-example:\/\/auth\/sign-in\?token=/);
  await openLink(link);
  await screen.findByText('Two-step verification');
  fireEvent.press(screen.getByRole('button', { name: 'Use a recovery code instead' }));
  fireEvent.changeText(screen.getByLabelText('Recovery code'), recoveryCodes[0]!);
  fireEvent.press(screen.getByRole('button', { name: 'Verify' }));
  await screen.findByText(`Signed in as ${email}`);

  // The link worked once: opened again, the server's sentence, and the session goes on.
  await openLink(link);
  await screen.findByText(/^This sign-in link is not valid any more/);
  expect(screen.getByText(`Signed in as ${email}`)).toBeTruthy();
});

it('a sixth code within the hour waits, and says how long', async () => {
  const email = uniqueEmail('limit');
  render(<App />);
  fireEvent.press(await screen.findByText('New here? Create an account'));
  fireEvent.press(screen.getByRole('button', { name: 'Sign up with an email code instead' }));
  fireEvent.changeText(await screen.findByLabelText('Email'), email);
  fireEvent.press(screen.getByRole('button', { name: 'Email me a code' }));
  await mailedCode(email, 1);
  for (let sent = 2; sent <= 5; sent++) {
    fireEvent.press(await screen.findByRole('button', { name: 'Send a new code' }));
    await mailedCode(email, sent);
  }
  fireEvent.press(await screen.findByRole('button', { name: 'Send a new code' }));
  await screen.findByText(/^Too many sign-in codes asked for; try again later\. Try again in \d+ minutes\.$/);
  expect(mailedCodes(email)).toHaveLength(5);
});
