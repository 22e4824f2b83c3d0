import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Readable } from 'node:stream';
import type { TestApp } from '../harness.js';
import { REQUEST_TIME_BOUND_MS } from './fuzz-settings.js';

/** What the fuzz oracles read of an answer. */
export type Answer = Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body' | 'json'>;

const LIVE_STREAM = /^text\/event-stream\b/i;

/**
 * One request through `inject`, which waits for the end of the answer — and a live stream
 * (`200 text/event-stream`: GET /v1/chats/{id}/stream, GET /v1/events/stream) ends only when the
 * server ends it (chat deleted, credential revoked…), so a fuzzed request that opens one would
 * hang the run. Every request is therefore sent with `payloadAsStream`: an ordinary answer is
 * read whole; a live stream is read up to its first chunk (the `retry:` line the server writes
 * as it starts), then the client hangs up, as a browser closing its EventSource does, so the
 * server ends the stream and gives its slot under the account's stream cap back. The body of
 * such an answer is that first chunk. Any operation added later that streams is handled alike.
 */
export async function send(t: Pick<TestApp, 'app'>, options: InjectOptions): Promise<Answer> {
  const res = await t.app.inject({ ...options, payloadAsStream: true });
  const live = res.statusCode === 200 && LIVE_STREAM.test(String(res.headers['content-type'] ?? ''));
  let body: string;
  if (live) {
    try {
      body = await firstChunk(res.stream());
    } finally {
      res.raw.res.destroy();
    }
  } else {
    body = await whole(res.stream());
  }
  return { statusCode: res.statusCode, headers: res.headers, body, json: () => JSON.parse(body) };
}

function whole(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks).toString()));
    stream.once('error', reject);
  });
}

/** The first chunk of a stream; empty if none came within the time bound (the oracle then reports the time). */
function firstChunk(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    const done = (text: string) => {
      clearTimeout(timer);
      stream.off('data', onData);
      resolve(text);
    };
    const onData = (chunk: Buffer) => done(chunk.toString());
    const timer = setTimeout(() => done(''), REQUEST_TIME_BOUND_MS + 500);
    stream.on('data', onData);
    stream.once('end', () => done(''));
    // Hanging up destroys the stream with an error (LIGHT_ECONNRESET): expected, not a finding.
    stream.on('error', () => done(''));
  });
}
