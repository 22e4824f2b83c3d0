/**
 * The SSE parser against the WHATWG rules, fed whole and split at every position (a network
 * chunk can end anywhere, between the \r and \n of a CRLF too).
 */
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseMessage } from '../src/streams/sse-parser.js';

interface Parsed {
  events: SseMessage[];
  retries: number[];
}

function parse(chunks: string[]): Parsed {
  const parsed: Parsed = { events: [], retries: [] };
  const parser = createSseParser({ onEvent: (m) => parsed.events.push(m), onRetry: (ms) => parsed.retries.push(ms) });
  for (const chunk of chunks) parser.feed(chunk);
  return parsed;
}

/** The same result however the text is cut: whole, at every single position, and one character at a time. */
function parseEverySplit(text: string): Parsed {
  const whole = parse([text]);
  for (let i = 0; i <= text.length; i++) expect(parse([text.slice(0, i), text.slice(i)]), `split at ${i}`).toEqual(whole);
  expect(parse([...text]), 'one character per chunk').toEqual(whole);
  return whole;
}

const ENVELOPE = '{"id":"evt_1","type":"message.delta","created_at":"2026-11-25T10:00:00.000Z","data":{"content":"héllo ✓"}}';

describe('SSE parser', () => {
  it('reports an id-only event (where a live stream starts) without dispatching it', () => {
    const ids: string[] = [];
    const events: string[] = [];
    const parser = createSseParser({ onEvent: (m) => events.push(`${m.id}:${m.data}`), onId: (id) => ids.push(id) });
    parser.feed('retry: 2000\nid: 41\n\n: ping\n\nid: 42\ndata: {}\n\nevent: x\n\n');
    expect(ids).toEqual(['41']);
    expect(events).toEqual(['42:{}']);
  });

  it('reads the server’s stream: retry, events with id/event/data, heartbeats', () => {
    const text = `retry: 2000\n\nid: 41\nevent: message.created\ndata: {"a":1}\n\n: ping\n\nid: 42\nevent: message.delta\ndata: ${ENVELOPE}\n\n`;
    expect(parseEverySplit(text)).toEqual({
      retries: [2000],
      events: [
        { id: '41', event: 'message.created', data: '{"a":1}' },
        { id: '42', event: 'message.delta', data: ENVELOPE },
      ],
    });
  });

  it('accepts CRLF, CR and LF line endings, mixed', () => {
    const text = 'id: 1\r\ndata: a\r\n\r\nid: 2\rdata: b\r\rid: 3\ndata: c\r\n\n';
    expect(parseEverySplit(text).events).toEqual([
      { id: '1', event: 'message', data: 'a' },
      { id: '2', event: 'message', data: 'b' },
      { id: '3', event: 'message', data: 'c' },
    ]);
  });

  it('does not take a CR then LF split across chunks for two line endings', () => {
    expect(parse(['data: a\r', '\ndata: b\r', '\n\r', '\n']).events).toEqual([{ id: '', event: 'message', data: 'a\nb' }]);
  });

  it('joins multi-line data with \\n, keeping empty lines and inner colons', () => {
    const text = 'data: first\ndata:\ndata:  two spaces\ndata: a: b\n\n';
    expect(parseEverySplit(text).events).toEqual([{ id: '', event: 'message', data: 'first\n\n two spaces\na: b' }]);
  });

  it('ignores comments and unknown fields; a field without a colon has an empty value', () => {
    const text = ': ping\n:\nfoo: bar\ndata\n\ndata: x\nevent\n\n';
    expect(parseEverySplit(text).events).toEqual([
      { id: '', event: 'message', data: '' },
      { id: '', event: 'message', data: 'x' },
    ]);
  });

  it('dispatches nothing for an event without data, nor for an unfinished one', () => {
    expect(parse(['id: 7\nevent: nothing\n\n', 'data: cut off']).events).toEqual([]);
    expect(parse(['id: 7\n\ndata: later\n\n']).events).toEqual([{ id: '7', event: 'message', data: 'later' }]);
  });

  it('keeps the last event id for events without an id line, and ignores an id containing NUL', () => {
    const text = 'id: 5\ndata: a\n\nevent: stream.closed\ndata: {"reason":"shutdown"}\n\nid: 6\u0000x\ndata: b\n\nid\ndata: c\n\n';
    expect(parseEverySplit(text).events).toEqual([
      { id: '5', event: 'message', data: 'a' },
      { id: '5', event: 'stream.closed', data: '{"reason":"shutdown"}' },
      { id: '5', event: 'message', data: 'b' },
      { id: '', event: 'message', data: 'c' },
    ]);
  });

  it('reads retry only when it is all ASCII digits', () => {
    expect(parseEverySplit('retry: 10\nretry: 1.5\nretry: -1\nretry: 7s\nretry:250\nretry\n').retries).toEqual([10, 250]);
  });

  it('strips one leading BOM, only at the start of the stream', () => {
    expect(parse(['\uFEFFdata: a\n\n']).events).toEqual([{ id: '', event: 'message', data: 'a' }]);
    expect(parse(['', '\uFEFF', 'data: a\n\n']).events).toEqual([{ id: '', event: 'message', data: 'a' }]);
    // A second BOM is part of the line: "\uFEFFdata" is an unknown field.
    expect(parse(['\uFEFF\uFEFFdata: a\n\n']).events).toEqual([]);
    expect(parse(['data: a\n\n\uFEFFdata: b\n\n']).events).toEqual([{ id: '', event: 'message', data: 'a' }]);
  });

  it('takes only the first space after the colon off the value', () => {
    expect(parse(['event:  spaced\ndata:no-space\n\n']).events).toEqual([{ id: '', event: ' spaced', data: 'no-space' }]);
  });
});
