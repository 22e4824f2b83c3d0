import { connect, type Socket } from 'node:net';

/** A hand-driven HTTP/1.1 connection: what a misbehaving client looks like on the wire. */
export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves when the connection ends, with the milliseconds it lasted from the first write. */
  closed: Promise<number>;
  isClosed(): boolean;
  destroy(): void;
}

/**
 * Connects to `base`, writes `head` at once, then `drip` (if given) one byte every `dripMs`
 * until the server closes the connection: slowloris for headers, a slow upload for bodies.
 */
export function rawConnection(base: string, head: string, drip?: { byte: string; everyMs: number }): Promise<RawConnection> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    let received = '';
    let isClosed = false;
    const socket = connect(Number(port), hostname);
    let timer: NodeJS.Timeout | undefined;
    let started = 0;
    const closed = new Promise<number>((done) => {
      socket.once('close', () => {
        isClosed = true;
        clearInterval(timer);
        done(Date.now() - started);
      });
    });
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => {}); // a reset by the server is one of the outcomes we look at
    socket.once('connect', () => {
      started = Date.now();
      if (head) socket.write(head);
      if (drip) timer = setInterval(() => !isClosed && socket.write(drip.byte), drip.everyMs);
      resolve({ socket, received: () => received, closed, isClosed: () => isClosed, destroy: () => socket.destroy() });
    });
    socket.once('error', reject);
  });
}

/** The status code of the first answer on a raw connection, if one came. */
export function statusOf(raw: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(raw);
  return match ? Number(match[1]) : undefined;
}
