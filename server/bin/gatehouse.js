#!/usr/bin/env node
// The CLI runs the compiled server (dist/, made from src/ by `npm run build -w server`; `npm start`
// and the test suites build it first): plain Node, no TypeScript loader at run time.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('gatehouse: the server is not built (no dist/cli.js). Run `npm run build -w server` in the repository, or `npm start`, which builds it.');
  process.exit(1);
}
const { main } = await import(cli.href);
await main(process.argv.slice(2));
