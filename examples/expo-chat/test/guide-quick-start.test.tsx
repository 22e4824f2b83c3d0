/**
 * The mobile guide's first example (docs/guides/mobile-app.md), exactly as a reader copies it,
 * signs in against the live server and signs out again. The only change is its `baseUrl`, which
 * points at the suite's server instead of https://auth.example.com. The block is copied into
 * test/generated/ (not committed) on every run, so a guide edit that breaks the example fails here.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fireEvent, render, screen } from '@testing-library/react-native';
import type { ComponentType } from 'react';

// eslint-disable-next-line @typescript-eslint/no-require-imports
jest.mock('expo-secure-store', () => require('./fixtures/memory-secure-store'));

const guide = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'guides', 'mobile-app.md'), 'utf8');
const example = /```tsx\n([\s\S]*?)```/.exec(guide)![1];
const [, email, password] = /signIn\('([^']+)', '([^']+)'\)/.exec(example)!;

it("the guide's quick start signs in against a live server and signs out", async () => {
  expect(example).toContain('baseUrl="https://auth.example.com"');
  const generated = join(__dirname, 'generated');
  mkdirSync(generated, { recursive: true });
  writeFileSync(join(generated, 'quick-start.tsx'), example.replace('baseUrl="https://auth.example.com"', 'baseUrl={process.env.GATEHOUSE_TEST_URL!}'));
  const registered = await fetch(`${process.env.GATEHOUSE_TEST_URL}/v1/auth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password, name: 'Guide Reader' }),
  });
  expect([201, 409]).toContain(registered.status); // 409: an earlier run on the same server made it

  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const App = (require('./generated/quick-start') as { default: ComponentType }).default;
  render(<App />);
  fireEvent.press(await screen.findByText('Sign in'));
  fireEvent.press(await screen.findByText(`Signed in as ${email}`));
  await screen.findByText('Sign in');
});
