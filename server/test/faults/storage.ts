import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { scratchPostgres } from '../webhooks/process-helpers.js';

/** The shared PostgreSQL: DATABASE_URL when it names one, else the local default (CI starts it). */
export const SHARED_POSTGRES_URL = process.env.DATABASE_URL?.startsWith('postgres')
  ? process.env.DATABASE_URL
  : (process.env.FAULTS_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

/** Direct SQL on a server's storage, read-only by intent: the invariant checks look, never fix. */
export interface Inspector {
  dialect: 'sqlite' | 'postgres';
  all<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

export interface Storage {
  name: 'sqlite' | 'postgres';
  /** DATABASE_URL for the server. */
  url: string;
  inspect(): Promise<Inspector>;
  /** Removes the file or drops the database. */
  drop(): Promise<void>;
}

export function sqliteStorage(): Storage {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-faults-'));
  const path = join(dir, 'gatehouse.db');
  return {
    name: 'sqlite',
    url: `sqlite:${path}`,
    async inspect() {
      const db = new SQLite(path, { fileMustExist: true });
      return { dialect: 'sqlite', all: async <T>(sql: string) => db.prepare(sql).all() as T[], close: async () => void db.close() };
    },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

export async function postgresStorage(): Promise<Storage> {
  const scratch = await scratchPostgres(SHARED_POSTGRES_URL, 'gatehouse_faults');
  return {
    name: 'postgres',
    url: scratch.url,
    async inspect() {
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      return { dialect: 'postgres', all: async <T>(sql: string) => (await client.query(sql)).rows as T[], close: () => client.end() };
    },
    drop: scratch.drop,
  };
}
