import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';

/**
 * A deliberately injectable endpoint (string-built SQL over an in-memory SQLite), the canary
 * that shows the sqlmap settings and the output parsing can catch an injection at all, in a
 * query parameter and in a JSON body. Never used outside the test.
 */
export async function startVulnerableServer(): Promise<{ base: string; close(): Promise<void> }> {
  const db = new Database(':memory:');
  db.exec("create table items (id integer primary key, name text); insert into items (name) values ('alpha'), ('beta'), ('gamma')");
  const find = (where: string) => db.prepare(`select id, name from items where ${where}`).all();

  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      try {
        const url = new URL(req.url ?? '/', 'http://canary');
        const rows = req.method === 'POST'
          ? find(`name = '${(JSON.parse(body) as { name: string }).name}'`)
          : find(`id = ${url.searchParams.get('id')}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: rows }));
      } catch {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal"}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      db.close();
    }),
  };
}
