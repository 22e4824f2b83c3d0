import { readFileSync } from 'node:fs';

/** This server's version, from its package.json (two levels up from src/kernel or dist/kernel): what it tells a protocol peer it is. */
export const SERVICE_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
