import { createGatehouse } from '@gatehouse/sdk';
import { readFileSync } from 'node:fs';
import { memorySessionStorage, type SessionStorage } from '../src/index.js';

/** The live server the suite started (global-setup.mjs). */
export const SERVER = process.env.GATEHOUSE_TEST_URL!;
export const PASSWORD = 'Vivid-Otter-Quarry-42';
let counter = 0;

export function uniqueEmail(): string {
  return `rn${++counter}.${Math.random().toString(36).slice(2, 10)}@example.com`;
}

/**
 * A user who signed in on this device before: an account on the live server, and a storage
 * holding its session and its user as the app stored them then.
 */
export async function returningUser(name = 'Ada Returning'): Promise<{ email: string; storage: SessionStorage; userId: string }> {
  const email = uniqueEmail();
  const storage = memorySessionStorage();
  const gh = createGatehouse({ baseUrl: SERVER, tokenStore: storage });
  await gh.auth.register({ email, password: PASSWORD, name });
  await gh.auth.login({ username: email, password: PASSWORD });
  const user = await gh.me.get();
  await storage.setUser(user);
  return { email, storage, userId: user.id };
}

/**
 * The link the server mailed to `email` for `page` (the development log mailer writes mails to the
 * log): the app's own-scheme link when the mail has one (it comes after the https one), as the
 * app is opened with it.
 */
export async function mailedLink(email: string, page: 'verify-email' | 'reset-password' | 'accept-invitation' | 'sign-in', timeoutMs = 5_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const lines = readFileSync(process.env.GATEHOUSE_TEST_LOG!, 'utf8').split('\n').filter((line) => line.includes('"mail"'));
    const links = lines
      .map((line) => JSON.parse(line) as { mail: { to: string; text: string } })
      .filter((entry) => entry.mail.to === email)
      .map((entry) => {
        const found = [...entry.mail.text.matchAll(new RegExp(`\\S*/${page}\\?token=\\S+`, 'g'))].map((m) => m[0]);
        return found.find((link) => !/^https?:/.test(link)) ?? found[0];
      })
      .filter((link): link is string => link !== undefined);
    if (links.length > 0) return links.at(-1)!;
    if (Date.now() - started > timeoutMs) throw new Error(`no ${page} mail to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The 6-digit code of the newest sign-in mail to `email`. */
export async function mailedCode(email: string, timeoutMs = 5_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const codes = readFileSync(process.env.GATEHOUSE_TEST_LOG!, 'utf8').split('\n').filter((line) => line.includes('"mail"'))
      .map((line) => JSON.parse(line) as { mail: { to: string; text: string } })
      .filter((entry) => entry.mail.to === email)
      .map((entry) => /sign-in code is (\d{6})/.exec(entry.mail.text)?.[1])
      .filter((code): code is string => code !== undefined);
    if (codes.length > 0) return codes.at(-1)!;
    if (Date.now() - started > timeoutMs) throw new Error(`no sign-in code mailed to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Follows the confirmation link mailed at sign-up to `email` (adding a way into the account needs it). */
export async function confirmEmail(email: string): Promise<void> {
  const link = await mailedLink(email, 'verify-email');
  await createGatehouse({ baseUrl: SERVER }).auth.verifyEmail({ token: new URL(link, SERVER).searchParams.get('token')! });
}

/** The session id (`sid`) inside an access token. */
export function sessionIdOf(accessToken: string): string {
  return JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).sid;
}

/**
 * The current code of an `otpauth://totp/…` URL (RFC 6238 as authenticator apps run it: HMAC-SHA1,
 * 6 digits, 30 s), written here independently of the server's implementation.
 */
export function totpNow(otpauthUrl: string): string {
  const { createHmac } = require('node:crypto') as typeof import('node:crypto');
  const base32 = new URL(otpauthUrl).searchParams.get('secret')!;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...base32].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[19]! & 15;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** Resolves with what `probe` returns once it is neither undefined nor false; polls every 5 ms. */
export async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 5_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
