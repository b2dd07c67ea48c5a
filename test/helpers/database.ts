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
interface ServerState {
  starting?: Promise<void>;
  serverUrl?: string;
  embedded?: EmbeddedDatabase;
  templateName?: string;
  created: Set<string>;
}

// Mocha may load this module twice (a spec file that cannot be require()d is imported as
// ESM, the others through tsx's CommonJS path), so the one server lives on globalThis.
const stateKey = Symbol.for('bench-leaderboard.test-database-server');
const state: ServerState = ((globalThis as Record<symbol, ServerState>)[stateKey] ??= { created: new Set() });

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: state.serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Started on first use, so suites without database tests never boot one. */
function ensureServer(): Promise<void> {
  return (state.starting ??= startServer());
}

async function startServer(): Promise<void> {
  if (process.env.DATABASE_URL) {
    state.serverUrl = process.env.DATABASE_URL;
  } else {
    state.embedded = await startEmbeddedPostgres(path.resolve('data/test-pg'));
    state.serverUrl = state.embedded.url;
  }
  const templateName = (state.templateName = `bh_tpl_${process.pid}_${randomBytes(3).toString('hex')}`);
  await admin((c) => c.query(`create database ${templateName}`));
  const db = createDb(withDatabase(state.serverUrl, templateName));
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

export async function stopTestDatabaseServer(): Promise<void> {
  if (!state.serverUrl) return;
  await admin(async (c) => {
    for (const name of [...state.created, state.templateName]) {
      if (name) await c.query(`drop database if exists ${name} with (force)`);
    }
  });
  state.created.clear();
  await state.embedded?.stop();
  state.embedded = state.serverUrl = state.templateName = state.starting = undefined;
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
  await admin((c) => c.query(`create database ${name} template ${state.templateName}`));
  state.created.add(name);
  const url = withDatabase(state.serverUrl!, name);
  const db = createDb(url, { max: 5 });
  return {
    db,
    url,
    drop: async () => {
      await db.destroy();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
      state.created.delete(name);
    },
  };
}
