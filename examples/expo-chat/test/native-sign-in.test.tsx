/**
 * "Sign in with Apple" and "Sign in with Google" as the app's user meets them. The buttons follow
 * the server's providers (`GET /v1/auth/providers`, answered here as each case needs): Apple's on
 * iOS for a native provider of type `apple` when the device offers it, Google's on Android for a
 * native one of type `google`. Then each sheet signs in against the live server: the sheets' native
 * modules answer with a real ID token of the suite's OpenID issuer, issued to the app's bundle id
 * (react-native/test/native-app.ts), which stands in for Apple's and Google's; everything else is
 * the packages' own JavaScript.
 */
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react-native';
import { Platform } from 'react-native';
import { sheetIdToken } from '../../../react-native/test/native-app';

// eslint-disable-next-line @typescript-eslint/no-require-imports
jest.mock('expo-secure-store', () => require('./fixtures/memory-secure-store'));

// expo-apple-authentication's native module (iOS's ASAuthorizationController).
const mockApple = { available: true, request: jest.fn() };
jest.mock('expo-apple-authentication/build/ExpoAppleAuthentication', () => ({
  __esModule: true,
  default: {
    isAvailableAsync: async () => mockApple.available,
    requestAsync: (options: unknown) => mockApple.request(options),
    addListener: () => undefined,
    removeListeners: async () => undefined,
  },
}));

// @react-native-google-signin/google-signin's native module (Android's Google Sign-In).
const mockGoogle = { signIn: jest.fn(), configure: jest.fn(async (_options: unknown) => undefined), signOut: jest.fn(async () => null) };
jest.mock(require.resolve('@react-native-google-signin/google-signin/package.json').replace('package.json', 'lib/module/spec/NativeGoogleSignin.js'), () => ({
  NativeModule: {
    configure: (options: unknown) => mockGoogle.configure(options),
    signIn: (options: unknown) => mockGoogle.signIn(options),
    signOut: () => mockGoogle.signOut(),
    playServicesAvailable: async () => true,
    getConstants: () => ({ SIGN_IN_CANCELLED: 'SIGN_IN_CANCELLED', IN_PROGRESS: 'IN_PROGRESS', PLAY_SERVICES_NOT_AVAILABLE: 'PLAY_SERVICES_NOT_AVAILABLE', SIGN_IN_REQUIRED: 'SIGN_IN_REQUIRED', SCOPES_ALREADY_GRANTED: 'SCOPES_ALREADY_GRANTED', BUTTON_SIZE_ICON: 2, BUTTON_SIZE_WIDE: 1, BUTTON_SIZE_STANDARD: 0, ONE_TAP_START_FAILED: 'ONE_TAP_START_FAILED', NO_SAVED_CREDENTIAL_FOUND: 'NO_SAVED_CREDENTIAL_FOUND' }),
  },
}));

const SERVER = process.env.GATEHOUSE_TEST_URL!;
process.env.EXPO_PUBLIC_GATEHOUSE_URL = SERVER;
process.env.EXPO_PUBLIC_GOOGLE_WEB_CLIENT_ID = '1234-web.apps.googleusercontent.com';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const App = (require('../src/App') as typeof import('../src/App')).default;

type Provider = { id: string; name: string; type: 'oidc' | 'github' | 'apple' | 'google'; web: boolean; native: boolean };

// The server's providers as this test wants them; every other request goes where it was sent (the
// server's are recorded: the app's, the issuer's are the stand-in sheets').
let providers: Provider[] = [];
const requests: Array<{ path: string; body: unknown }> = [];
const realFetch = globalThis.fetch;
beforeEach(() => {
  requests.length = 0;
  jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    if (url.pathname === '/v1/auth/providers') return new Response(JSON.stringify({ data: providers }), { status: 200, headers: { 'content-type': 'application/json' } });
    if (url.origin === new URL(SERVER).origin) requests.push({ path: url.pathname, body: typeof init?.body === 'string' ? JSON.parse(init.body) : null });
    return realFetch(input, init);
  });
  (jest.requireMock('expo-secure-store') as { clearForTest: () => void }).clearForTest(); // a fresh install each time
  mockApple.available = true;
});
afterEach(() => {
  jest.restoreAllMocks();
  (Platform as { OS: string }).OS = 'ios';
});

function onPlatform(os: 'ios' | 'android') {
  (Platform as { OS: string }).OS = os;
}

/** The log-in screen once the providers' list is in (a browser-flow provider's button shows it). */
async function renderSignIn() {
  render(<App />);
  await screen.findByRole('button', { name: 'Continue with Corp SSO' });
  await act(async () => {}); // Apple's availability answered too
}

const CORP: Provider = { id: 'corp', name: 'Corp SSO', type: 'oidc', web: true, native: true };

describe('which native buttons show', () => {
  it.each([
    ['ios', true, [{ id: 'apple', name: 'Apple', type: 'apple', web: false, native: true }], ['Sign in with Apple']],
    ['ios', false, [{ id: 'apple', name: 'Apple', type: 'apple', web: false, native: true }], []], // an iPhone without Sign in with Apple
    ['android', true, [{ id: 'apple', name: 'Apple', type: 'apple', web: false, native: true }], []],
    ['ios', true, [{ id: 'apple', name: 'Apple', type: 'apple', web: true, native: false }], ['Continue with Apple']], // no ID tokens taken: the browser
    ['ios', true, [{ id: 'apple', name: 'Apple', type: 'apple', web: true, native: true }], ['Sign in with Apple']], // not twice
    ['android', true, [{ id: 'google', name: 'Google', type: 'google', web: true, native: true }], ['Sign in with Google']],
    ['ios', true, [{ id: 'google', name: 'Google', type: 'google', web: true, native: true }], ['Continue with Google']],
    ['android', true, [{ id: 'google', name: 'Google', type: 'google', web: true, native: false }], ['Continue with Google']],
    ['android', true, [{ id: 'workspace', name: 'Workspace', type: 'oidc', web: false, native: true }], []], // native, but not Google's
  ] as Array<['ios' | 'android', boolean, Provider[], string[]]>)('on %s (Apple available: %s) with %j: %j', async (os, available, configured, expected) => {
    onPlatform(os);
    mockApple.available = available;
    providers = [...configured, CORP];
    await renderSignIn();
    const shown = ['Sign in with Apple', 'Sign in with Google', 'Continue with Apple', 'Continue with Google'].filter((name) => screen.queryByLabelText(name) ?? screen.queryByRole('button', { name }));
    expect(shown).toEqual(expected);
  });
});

it('signs in with Apple: the hashed nonce to the sheet, the nonce and the name to Gatehouse; a closed sheet is no error', async () => {
  onPlatform('ios');
  const email = `expo.apple.${Date.now().toString(36)}@example.com`;
  // The suite's issuer plays Apple: its provider on the server is `test-idp`, listed as Apple's here.
  providers = [{ id: 'test-idp', name: 'Apple', type: 'apple', web: false, native: true }, CORP];
  mockApple.request.mockRejectedValueOnce(Object.assign(new Error('The user canceled the authorization attempt.'), { code: 'ERR_REQUEST_CANCELED' }));
  await renderSignIn();
  fireEvent(screen.getByLabelText('Sign in with Apple'), 'buttonPress');
  await waitFor(() => expect(mockApple.request).toHaveBeenCalledTimes(1));
  await act(async () => {});
  expect(screen.getByRole('button', { name: 'Log in' })).toBeTruthy();
  expect(screen.queryByText(/cancel/i)).toBeNull();
  expect(requests.filter((request) => request.path === '/v1/auth/id-token')).toEqual([]);

  mockApple.request.mockImplementationOnce(async (options: { nonce: string }) => ({
    user: '001234.abcd', state: null, authorizationCode: 'c_apple', realUserStatus: 1, email,
    identityToken: await sheetIdToken(email, options.nonce), // Apple puts the nonce it was given (the hash) in the token
    fullName: { givenName: 'Ada', familyName: 'Apple', middleName: null, namePrefix: null, nameSuffix: null, nickname: null },
  }));
  fireEvent(screen.getByLabelText('Sign in with Apple'), 'buttonPress');
  await screen.findByText(`Signed in as ${email}`);

  const [options] = mockApple.request.mock.calls[1] as [{ requestedScopes: number[]; nonce: string }];
  expect(options.requestedScopes).toEqual([0, 1]); // FULL_NAME, EMAIL
  expect(options.nonce).toMatch(/^[0-9a-f]{64}$/);
  const sent = requests.find((request) => request.path === '/v1/auth/id-token')!.body as { provider: string; nonce: string; name: string };
  expect(sent).toMatchObject({ provider: 'test-idp', name: 'Ada Apple' });
  expect(sent.nonce).not.toBe(options.nonce);
});

it('signs in with Google on Android: the web client id configured, the ID token to Gatehouse', async () => {
  onPlatform('android');
  const email = `expo.google.${Date.now().toString(36)}@example.com`;
  providers = [{ id: 'test-idp', name: 'Google', type: 'google', web: true, native: true }, CORP];
  mockGoogle.signIn.mockImplementationOnce(async () => ({
    idToken: await sheetIdToken(email), // Google's sheet in the free package takes no nonce
    serverAuthCode: null, scopes: [],
    user: { id: '1098', email, name: 'Ada Google', givenName: 'Ada', familyName: 'Google', photo: null },
  }));
  await renderSignIn();
  expect(screen.queryByRole('button', { name: 'Continue with Google' })).toBeNull();
  fireEvent.press(screen.getByRole('button', { name: 'Sign in with Google' }));
  await screen.findByText(`Signed in as ${email}`);
  expect(mockGoogle.configure).toHaveBeenCalledWith({ webClientId: '1234-web.apps.googleusercontent.com' });
  expect(mockGoogle.signOut).toHaveBeenCalled(); // the next sign-in offers Google's account picker again
  const sent = requests.find((request) => request.path === '/v1/auth/id-token')!.body as Record<string, unknown>;
  expect(sent).toMatchObject({ provider: 'test-idp' });
  expect(sent).not.toHaveProperty('nonce');
});
