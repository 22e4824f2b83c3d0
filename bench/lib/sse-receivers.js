// The receiving side of the streams bench: many Server-Sent Event streams over plain node:http,
// each parsed just enough to find its events' `data:` JSON, and a callback per event.
import http from 'node:http';

/**
 * Opens one stream; resolves once the server's first bytes (`retry:`) arrived, so the stream is
 * registered on the server. `onEvent(data, receivedAt)` gets each event's parsed `data` JSON.
 */
export function openStream(url, token, onEvent) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`stream ${url} answered ${response.statusCode}`));
        return;
      }
      response.setEncoding('utf8');
      let buffer = '';
      let started = false;
      response.on('data', (chunk) => {
        const receivedAt = performance.now();
        if (!started) {
          started = true;
          resolve({ close: () => request.destroy() });
        }
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const at = block.indexOf('\ndata: ');
          if (at >= 0) onEvent(JSON.parse(block.slice(at + 7)), receivedAt);
        }
      });
      response.on('error', () => {});
    });
    request.on('error', reject);
  });
}
