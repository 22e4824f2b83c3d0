import http from 'node:http';

/** One Server-Sent Event as a client sees it; `data` parsed from JSON. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: { id?: string; type?: string; created_at?: string; data?: Record<string, unknown>; reason?: string };
}

export interface SseConnection {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every event so far, in order (comments and `retry:` lines are not events). */
  events: SseEvent[];
  /** Heartbeat comments seen. */
  comments: number;
  /** Resolves with the first event (from the start) that `match` accepts. */
  next(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves with the time (Date.now()) the server ended the stream. */
  ended: Promise<number>;
  /** The body of an answer that was not a stream (problem+json). */
  body(): Promise<string>;
  /** Drops the connection from the client's side. */
  close(): void;
}

/**
 * A minimal SSE reader over node:http, written from the WHATWG rules independently of the
 * server's writer and of the SDK's parser: the server tests read what goes over the wire.
 */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      const events: SseEvent[] = [];
      const waiters: Array<() => void> = [];
      let buffer = '';
      let raw = '';
      let comments = 0;
      let resolveEnded!: (at: number) => void;
      const ended = new Promise<number>((r) => (resolveEnded = r));
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments++;
            const colon = line.indexOf(':');
            if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
          }
          if (fields.data !== undefined) events.push({ id: fields.id, event: fields.event ?? 'message', data: JSON.parse(fields.data) });
        }
        for (const w of waiters.splice(0)) w();
      });
      const finish = () => {
        resolveEnded(Date.now());
        for (const w of waiters.splice(0)) w();
      };
      response.on('end', finish);
      response.on('close', finish);
      response.on('error', finish);
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        events,
        get comments() {
          return comments;
        },
        ended,
        async body() {
          await ended;
          return raw;
        },
        next(match, timeoutMs = 5_000) {
          return new Promise((resolveEvent, rejectEvent) => {
            const deadline = setTimeout(() => rejectEvent(new Error(`no matching event within ${timeoutMs} ms; got ${events.map((e) => `${e.id}:${e.event}`).join(', ')}`)), timeoutMs);
            const check = () => {
              const found = events.find(match);
              if (found) {
                clearTimeout(deadline);
                resolveEvent(found);
              } else waiters.push(check);
            };
            check();
          });
        },
        close: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}
