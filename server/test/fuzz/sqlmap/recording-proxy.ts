import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query as the server received them. */
  path: string;
  body: string;
  status: number;
}

export interface RecordingProxy {
  url: string;
  /** Everything forwarded since the last call, and forget it. */
  take(): RecordedRequest[];
  close(): Promise<void>;
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/**
 * A plain-HTTP forward proxy that sqlmap is pointed at (`--proxy`): it relays every request to
 * the one server under test and remembers what was sent and what came back. This is how the test
 * knows sqlmap's payloads really reached Gatehouse, and how every status is checked (no 5xx, no
 * 401/429 that would have made the scan meaningless). Anything not for that server gets 502.
 */
export async function startRecordingProxy(targetBase: string): Promise<RecordingProxy> {
  const target = new URL(targetBase);
  let records: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', targetBase); // a proxy request line carries an absolute URL
    if (url.host !== target.host) {
      res.writeHead(502).end('not the server under test');
      return;
    }
    const path = url.pathname + url.search;
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    delete headers['proxy-connection'];
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path, headers }, async (answer) => {
      const payload = await readBody(answer);
      records.push({ method: req.method ?? 'GET', path, body: body.toString('utf8'), status: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers).end(payload);
    });
    upstream.on('error', (error) => {
      records.push({ method: req.method ?? 'GET', path, body: body.toString('utf8'), status: 0 });
      res.writeHead(502).end(String(error));
    });
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const taken = records;
      records = [];
      return taken;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
