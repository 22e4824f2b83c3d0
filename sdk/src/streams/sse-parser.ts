/**
 * An incremental Server-Sent Events parser (WHATWG HTML, "Interpreting an event stream"). Text
 * arrives in chunks that may split anywhere, between the \r and \n of a CRLF included; the parser
 * keeps the unfinished line and the event being built between chunks. It knows nothing about
 * connections: one parser per connection, so an event cut off by a dropped connection is never
 * dispatched (the server replays it after Last-Event-ID).
 */

/** One dispatched event. */
export interface SseMessage {
  /** The last event ID buffer when dispatched: this event's `id:`, or the previous one if it had none. */
  id: string;
  /** `event:`, or `message` when the event named none. */
  event: string;
  /** The `data:` lines joined with \n. */
  data: string;
}

export interface SseHandlers {
  onEvent(message: SseMessage): void;
  /**
   * An event without data that set the last event ID (`id: 42` and a blank line): per the spec
   * nothing is dispatched, but a reconnect sends that id. Gatehouse sends one when a stream starts
   * live: the position the stream starts from.
   */
  onId?(id: string): void;
  /** A `retry:` line: the reconnection time the server asks for, in milliseconds. */
  onRetry?(milliseconds: number): void;
}

export interface SseParser {
  /** Parses as much of `chunk` as forms complete lines; keeps the rest for the next chunk. */
  feed(chunk: string): void;
}

const LF = 10;
const CR = 13;

export function createSseParser(handlers: SseHandlers): SseParser {
  let started = false;
  // The unfinished line: text after the last line ending seen. Never contains \r or \n.
  let pending = '';
  // The previous chunk ended in \r: a \n starting the next chunk belongs to that line ending.
  let skipLeadingLf = false;
  let data = '';
  let hasData = false;
  let eventType = '';
  let lastEventId = '';
  let sawId = false;

  function dispatch(): void {
    // An event without data lines (only `id:` or `event:`) is not dispatched, per the spec.
    if (hasData) handlers.onEvent({ id: lastEventId, event: eventType || 'message', data });
    else if (sawId) handlers.onId?.(lastEventId);
    sawId = false;
    data = '';
    hasData = false;
    eventType = '';
  }

  function processLine(line: string): void {
    if (line === '') return dispatch();
    if (line.charCodeAt(0) === 58 /* : */) return; // a comment, e.g. the server's `: ping` heartbeat
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    switch (field) {
      case 'event':
        eventType = value;
        break;
      case 'data':
        data = hasData ? `${data}\n${value}` : value;
        hasData = true;
        break;
      case 'id':
        // A NUL in the id would make it unusable as a Last-Event-ID header value.
        if (!value.includes('\0')) {
          lastEventId = value;
          sawId = true;
        }
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) handlers.onRetry?.(Number(value));
        break;
      default: // unknown fields are ignored
    }
  }

  return {
    feed(chunk) {
      if (chunk === '') return;
      if (!started) {
        started = true;
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1); // one leading BOM, only at the very start
      }
      if (skipLeadingLf) {
        skipLeadingLf = false;
        if (chunk.charCodeAt(0) === LF) chunk = chunk.slice(1);
      }
      const text = pending + chunk;
      let lineStart = 0;
      // `pending` holds no line ending, so scanning can start where the new chunk begins.
      for (let i = pending.length; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (code !== LF && code !== CR) continue;
        processLine(text.slice(lineStart, i));
        if (code === CR) {
          if (i + 1 === text.length) skipLeadingLf = true;
          else if (text.charCodeAt(i + 1) === LF) i++;
        }
        lineStart = i + 1;
      }
      pending = text.slice(lineStart);
    },
  };
}
