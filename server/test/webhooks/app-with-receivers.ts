import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTestApp, type TestApp } from '../harness.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * The set-up of a describe block that delivers to real receivers: one test app on `env` for the
 * block (handed to `onApp` once it is up, closed at the end), and a starter of receivers that are
 * closed after each test, so a test's receivers never answer the next one's deliveries.
 */
export function appWithReceivers(env: Record<string, string>, onApp: (app: TestApp) => void) {
  let app: TestApp | undefined;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    app = await createTestApp({ env });
    onApp(app);
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  afterAll(() => app?.close());

  return async (...args: Parameters<typeof startReceiver>): Promise<Receiver> => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
}
