import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';

/**
 * One Postgres server for the whole run: `DATABASE_URL`'s when set (CI), otherwise an
 * embedded one under ./data/test-pg. A migrated template database is built once; every
 * test file clones it (`CREATE DATABASE ... TEMPLATE`), so files never share rows.
 */
let serverUrl: string | undefined;
let embedded: EmbeddedDatabase | undefined;
let templateName: string | undefined;
const created = new Set<string>();

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let starting: Promise<void> | undefined;

/** Started on first use, so suites without database tests never boot one. */
function ensureServer(): Promise<void> {
  return (starting ??= startServer());
}

async function startServer(): Promise<void> {
  if (process.env.DATABASE_URL) {
    serverUrl = process.env.DATABASE_URL;
  } else {
    embedded = await startEmbeddedPostgres(path.resolve('data/test-pg'));
    serverUrl = embedded.url;
  }
  templateName = `bh_tpl_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin((c) => c.query(`create database ${templateName}`));
  const db = createDb(withDatabase(serverUrl, templateName));
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

export async function stopTestDatabaseServer(): Promise<void> {
  if (!serverUrl) return;
  await admin(async (c) => {
    for (const name of [...created, templateName]) {
      if (name) await c.query(`drop database if exists ${name} with (force)`);
    }
  });
  created.clear();
  await embedded?.stop();
  serverUrl = undefined;
  starting = undefined;
}

export interface TestDatabase {
  db: Db;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated, empty database of its own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  await ensureServer();
  const name = `bh_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`create database ${name} template ${templateName}`));
  created.add(name);
  const url = withDatabase(serverUrl!, name);
  const db = createDb(url, { max: 5 });
  return {
    db,
    url,
    drop: async () => {
      await db.destroy();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
      created.delete(name);
    },
  };
}
