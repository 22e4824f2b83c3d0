/**
 * What every browser journey needs, set up by one call inside a `describe`:
 *
 *   describe.skipIf(skipJourneys)('dashboard journey: …', () => {
 *     const journey = useJourney({ name: 'operations', serverEnv: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
 *     it('…', async () => {
 *       const { page } = journey;
 *       await journey.signIn(await journey.signUp(), '/webhooks');
 *       await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
 *       await journey.shoot('webhooks');          // axe-core, then desktop + phone screenshots
 *       journey.expectFailedResponses([]);
 *     });
 *   });
 *
 * Before the file's tests it builds the dashboard when its sources are newer, starts `gatehouse
 * serve` on a free loopback port with a temporary SQLite file, launches Debian's Chromium and opens
 * one page; afterwards it closes them. It records the page's console errors and its failed
 * responses (checked with `expectFailedResponses`), and keeps the list of screenshots taken.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGatehouse, memoryTokenStore, type Gatehouse } from '@gatehouse/sdk';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { TOKEN_STORAGE_KEY } from '../src/lib/session-key.ts';
import { FAILING_IMPACTS, formatFindings, runAxeInBothSchemes } from './support/axe.ts';
import { ensureBuilt } from './support/build.ts';
import { CHROMIUM, launchChromium } from './support/browser.ts';
import { SCREENSHOT_DIR } from './support/paths.ts';
import { startServer, type RunningServer } from './support/server.ts';
import { expectWideLayout } from './support/wide-layout.ts';

export type { RunningServer } from './support/server.ts';

/**
 * Whether to skip the journeys: without Chromium a developer's `npm test` skips them (and says
 * so); CI installs it and never skips. Use as `describe.skipIf(skipJourneys)(…)`.
 */
export const skipJourneys = !existsSync(CHROMIUM) && process.env.CI !== 'true';
if (skipJourneys) console.warn(`dashboard browser journeys skipped: ${CHROMIUM} is missing (apt-get update && apt-get install -y chromium)`);

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface JourneyOptions {
  /** Its screenshots go to test-results/screenshots/<name>/ (emptied when the journey starts). */
  name: string;
  /** More server environment; a function runs in the journey's beforeAll (after the file's own earlier hooks). */
  serverEnv?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Let the page read and write the clipboard. */
  clipboard?: boolean;
}

export interface TestUser {
  name: string;
  email: string;
  password: string;
  /** The SDK signed in as this user from the test (a session of its own, not the browser's). */
  api: Gatehouse;
}

export interface Journey {
  readonly server: RunningServer;
  readonly browser: Browser;
  /** The main page's context. */
  readonly context: BrowserContext;
  /** The page steps act on: the main one, or inside `inOwnContext` that context's page. */
  readonly page: Page;
  /** Where this journey's screenshots go. */
  readonly screenshotDir: string;
  /** Console errors and uncaught exceptions of every page the journey opened. */
  readonly consoleErrors: string[];
  /** The screenshots taken, `NN-name` (each has -desktop.png and -phone.png). */
  readonly shots: string[];
  /** axe-core on the page now (colours in the light and the dark scheme); fails the test (softly: the journey goes on) on a serious or critical violation. */
  checkAccessibility(name: string): Promise<void>;
  /** axe, then desktop and phone screenshots of what is on screen; the phone one also checks nothing overflows sideways. */
  shoot(name: string): Promise<void>;
  /**
   * At 1280 and 1440 px wide (support/wide-layout.ts): one-token and date cells of the page's tables on
   * one line, no word split, nothing wider than the window, the header one row. Back at desktop size after.
   */
  checkWideLayout(name: string, options?: { tables?: boolean }): Promise<void>;
  /** Tab (at most `max` times) until the focused element matches `selector`. */
  tabTo(selector: string, max?: number): Promise<void>;
  /** The focused element's id, else its text, else its tag. */
  focused(): Promise<string | undefined>;
  /** The main page's failed responses (`METHOD /path status`) since the last call must be exactly these. */
  expectFailedResponses(expected: string[]): void;
  /**
   * Runs `steps` in a browser context of its own (its own storage: it starts signed out), on a page
   * that the journey's helpers act on meanwhile; console errors are still collected. The main
   * page comes back afterwards.
   */
  inOwnContext(baseURL: string, steps: (page: Page, context: BrowserContext) => Promise<void>): Promise<void>;
  /** A new account made through the API (email confirmed unless `verified: false`), and the SDK signed in as it. */
  signUp(details?: { name?: string; email?: string; password?: string; verified?: boolean }): Promise<TestUser>;
  /** Signs the current page in as `user` (a session of its own, written where the dashboard keeps it), then opens `path`. */
  signIn(user: Pick<TestUser, 'email' | 'password'>, path?: string): Promise<void>;
}

let unique = 0;
/** A value no other journey or run uses (emails, names). */
export const uniqueSuffix = () => `${Date.now().toString(36)}${(unique++).toString(36)}`;

/**
 * Follows a page: console errors (and uncaught exceptions) into `errors`, and, when `failed` is
 * given, every response with status ≥ 400. A failed fetch is also reported on the console as
 * "Failed to load resource": where responses are checked one by one, only those with a status are
 * left out of the console errors; elsewhere all of them are.
 */
function watch(page: Page, errors: string[], failed?: string[]): void {
  const tolerated = failed ? 'Failed to load resource: the server responded with a status of' : 'Failed to load resource';
  page.on('console', (msg) => msg.type() === 'error' && !msg.text().startsWith(tolerated) && errors.push(msg.text()));
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  if (failed) page.on('response', (res) => res.status() >= 400 && failed.push(`${res.request().method()} ${new URL(res.url()).pathname} ${res.status()}`));
}

/** Registers the journey's beforeAll/afterAll in the current describe, and returns its helpers. */
export function useJourney(options: JourneyOptions): Journey {
  const screenshotDir = join(SCREENSHOT_DIR, options.name);
  const consoleErrors: string[] = [];
  const failedResponses: string[] = [];
  const shots: string[] = [];
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let mainPage: Page | undefined;
  let current: Page | undefined;
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the journey has no ${what} yet: use it inside a test, after useJourney's beforeAll`);
    return value;
  };

  beforeAll(async () => {
    ensureBuilt();
    rmSync(screenshotDir, { recursive: true, force: true });
    mkdirSync(screenshotDir, { recursive: true });
    const env = typeof options.serverEnv === 'function' ? await options.serverEnv() : options.serverEnv;
    server = await startServer(env);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: DESKTOP, baseURL: server.base });
    if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    mainPage = current = await context.newPage();
    watch(mainPage, consoleErrors, failedResponses);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const journey: Journey = {
    get server() { return started(server, 'server'); },
    get browser() { return started(browser, 'browser'); },
    get context() { return started(context, 'browser context'); },
    get page() { return started(current, 'page'); },
    screenshotDir,
    consoleErrors,
    shots,

    async checkAccessibility(name) {
      const serious = (await runAxeInBothSchemes(journey.page)).filter((f) => FAILING_IMPACTS.includes(f.impact ?? null));
      expect.soft(formatFindings(name, serious), 'axe-core: serious or critical violations').toBe('');
    },

    async shoot(name) {
      const page = journey.page;
      await journey.checkAccessibility(name);
      const n = String(shots.length + 1).padStart(2, '0');
      await page.screenshot({ path: join(screenshotDir, `${n}-${name}-desktop.png`), fullPage: true });
      await page.setViewportSize(PHONE);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} is wider than a phone screen`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(screenshotDir, `${n}-${name}-phone.png`), fullPage: true });
      await page.setViewportSize(DESKTOP);
      shots.push(`${n}-${name}`);
    },

    checkWideLayout: (name, options) => expectWideLayout(journey.page, name, DESKTOP, options),

    async tabTo(selector, max = 40) {
      const page = journey.page;
      for (let i = 0; i < max; i++) {
        if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${selector}`);
    },

    focused: () => journey.page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || document.activeElement?.tagName),

    expectFailedResponses(expected) {
      expect(failedResponses.splice(0)).toEqual(expected);
    },

    async inOwnContext(baseURL, steps) {
      const own = await journey.browser.newContext({ viewport: DESKTOP, baseURL });
      const previous = current;
      current = await own.newPage();
      watch(current, consoleErrors);
      try {
        await steps(current, own);
      } finally {
        await own.close();
        current = previous;
      }
    },

    async signUp(details = {}) {
      const suffix = uniqueSuffix();
      const user = {
        name: details.name ?? `Journey user ${suffix}`,
        email: details.email ?? `journey.${suffix}@example.com`,
        password: details.password ?? `Quiet-Harbor-${suffix}-91`,
      };
      const api = createGatehouse({ baseUrl: journey.server.base, tokenStore: memoryTokenStore() });
      await api.auth.register(user);
      if (details.verified !== false) {
        let token: string | null = null;
        for (let tries = 0; !token && tries < 100; tries++) {
          token = journey.server.mailedToken('verify-email', user.email);
          if (!token) await sleep(100);
        }
        if (!token) throw new Error(`no confirmation mail reached ${user.email}`);
        await api.auth.verifyEmail({ token });
      }
      await api.auth.login({ username: user.email, password: user.password });
      return { ...user, api };
    },

    async signIn(user, path = '/') {
      const page = journey.page;
      const store = memoryTokenStore();
      await createGatehouse({ baseUrl: journey.server.base, tokenStore: store }).auth.login({ username: user.email, password: user.password });
      // Written on a page of the origin (signed out, so the dashboard does not act on it), then read by the next load.
      await page.goto('/login');
      await page.evaluate(([key, session]) => localStorage.setItem(key, session), [TOKEN_STORAGE_KEY, JSON.stringify(await store.get())] as const);
      await page.goto(path);
    },
  };
  return journey;
}
