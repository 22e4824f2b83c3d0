/**
 * "Continue with Test IdP" as the app's user meets it, against the live server and the OpenID
 * provider the suite started (react-native/test/global-setup.mjs). The browser session
 * (expo-web-browser) is a fetch-only browser that signs in at the provider's form and stops at
 * the app's link, as ASWebAuthenticationSession or a Custom Tab hands it back.
 */
import { fireEvent, render, screen } from '@testing-library/react-native';
import { signInAtProvider } from '../../../server/test/provider-browser';

const email = `expo.provider.${Date.now().toString(36)}@example.com`;
const mockOpenAuthSession = jest.fn(async (url: string, redirectUri: string) => ({
  type: 'success',
  url: (await signInAtProvider(url, email, { until: (u: URL) => u.toString().startsWith(redirectUri) })).toString(),
}));

jest.mock('expo-web-browser', () => ({ openAuthSessionAsync: (url: string, redirectUri: string) => mockOpenAuthSession(url, redirectUri) }));
// eslint-disable-next-line @typescript-eslint/no-require-imports
jest.mock('expo-secure-store', () => require('./fixtures/memory-secure-store'));

process.env.EXPO_PUBLIC_GATEHOUSE_URL = process.env.GATEHOUSE_TEST_URL;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const App = (require('../src/App') as typeof import('../src/App')).default;

it('signs up and in with the server’s provider through a browser session', async () => {
  render(<App />);
  fireEvent.press(await screen.findByRole('button', { name: 'Continue with Test IdP' }));
  await screen.findByText(`Signed in as ${email}`);
  expect(mockOpenAuthSession).toHaveBeenCalledWith(expect.stringContaining('/v1/auth/oidc/test-idp/authorize?'), 'gatehouse-example://auth/oidc');
});
