import { randomBytes } from 'node:crypto';
import { call, type Outcome } from './http.js';

/** What the server acknowledged (2xx, whole body read): after a crash all of it must be there. */
export interface Acknowledged {
  users: Array<{ id: string; email: string; password: string }>;
  keys: Array<{ id: string; key: string; userId: string }>;
  agents: Array<{ id: string; name: string; userId: string; key: string }>;
}

/** Everything the clients asked for, acknowledged or not: nothing else may appear in the database. */
export interface Attempted {
  emails: Set<string>;
  keyNames: Set<string>;
  agentNames: Set<string>;
}

export interface WriteLoad {
  acked: Acknowledged;
  attempted: Attempted;
  /** Requests sent and not yet answered, right now. */
  inFlight(): number;
  /** Answers that were neither a success nor the connection dying: each one is a bug. */
  unexpected: Outcome[];
  /** Resolves when every client has stopped: after the server died, or after `stop()`. */
  finished: Promise<void>;
  stop(): void;
}

const PASSWORD = 'Quartz-Meadow-Lantern-42';

/**
 * `clients` concurrent clients, each looping: register → log in → create an API key → create two
 * agents (one with the key, one with the access token). A client stops at the first request the
 * server does not answer (it was killed); any other failure is recorded as unexpected.
 */
export function startWriteLoad(base: string, clients: number): WriteLoad {
  const run = randomBytes(3).toString('hex');
  const acked: Acknowledged = { users: [], keys: [], agents: [] };
  const attempted: Attempted = { emails: new Set(), keyNames: new Set(), agentNames: new Set() };
  const unexpected: Outcome[] = [];
  let inFlight = 0;
  let stopped = false;

  const send = async (method: string, path: string, expected: number, options: Parameters<typeof call>[3]) => {
    inFlight++;
    const outcome = await call(base, method, path, options).finally(() => inFlight--);
    if (outcome.error) return null; // the server is gone: this write may or may not have happened
    if (outcome.status !== expected) {
      unexpected.push(outcome);
      return null;
    }
    return outcome.body;
  };

  async function client(n: number): Promise<void> {
    for (let i = 0; !stopped; i++) {
      const email = `faults-${run}-${n}-${i}@example.com`;
      attempted.emails.add(email);
      const user = await send('POST', '/v1/auth/register', 201, { body: { email, password: PASSWORD, name: `Fault ${n}.${i}` } });
      if (!user) return;
      acked.users.push({ id: user.id, email, password: PASSWORD });
      const login = await send('POST', '/v1/auth/login', 200, { body: { username: email, password: PASSWORD } });
      if (!login) return;
      const keyName = `key ${n}.${i}`;
      attempted.keyNames.add(keyName);
      const key = await send('POST', '/v1/api-keys', 201, { token: login.access_token, body: { name: keyName } });
      if (!key) return;
      acked.keys.push({ id: key.id, key: key.key, userId: user.id });
      for (const [j, credential] of [key.key, login.access_token].entries()) {
        const name = `agent ${n}.${i}.${j}`;
        attempted.agentNames.add(name);
        const agent = await send('POST', '/v1/agents', 201, { token: credential, body: { name, model: 'gpt-4o', instructions: 'x'.repeat(2000) } });
        if (!agent) return;
        acked.agents.push({ id: agent.id, name, userId: user.id, key: key.key });
      }
    }
  }

  const finished = Promise.all(Array.from({ length: clients }, (_, n) => client(n))).then(() => {});
  return { acked, attempted, unexpected, finished, inFlight: () => inFlight, stop: () => void (stopped = true) };
}
