import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';

/**
 * One Postgres server for the whole run: `DATABASE_URL`'s when set (CI), otherwise an
 * embedded one under ./data/test-pg. A migrated template database is built once; every
 * test file clones it (`CREATE DATABASE ... TEMPLATE`), so files never share rows.
 *
 * `npm test` runs files in parallel worker processes (mocha --parallel). There the main
 * process starts the server and builds the template before any worker exists
 * (`startSharedTestDatabaseServer`, a mocha global fixture in hooks.ts) and hands both to
 * the workers through the environment (SHARED_ENV); workers only clone and drop. Run
 * serially (one file, the e2e suite, the fuzz script), the process starts the server on
 * first use instead, so runs without database tests never boot one.
 *
 * Every database of a run is named `bh_t_<run>_...`, so the end of the run drops whatever
 * a crashed file left behind, in any worker.
 */
interface ServerState {
  starting?: Promise<void>;
  serverUrl?: string;
  embedded?: EmbeddedDatabase;
  templateName?: string;
  /** Prefix of this run's databases: the owner's pid and a random tag. */
  runId?: string;
  /** True in the process that started the server and built the template (it tears them down). */
  owner?: boolean;
  created: Set<string>;
}

/** Handed from the main process to parallel workers. */
const SHARED_ENV = {
  serverUrl: 'BH_TEST_DB_SERVER_URL',
  template: 'BH_TEST_DB_TEMPLATE',
  runId: 'BH_TEST_DB_RUN',
} as const;

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
  return (state.starting ??= process.env[SHARED_ENV.template] ? useSharedServer() : startServer());
}

/** In a parallel worker: the server and template the main process made. */
async function useSharedServer(): Promise<void> {
  state.serverUrl = process.env[SHARED_ENV.serverUrl];
  state.templateName = process.env[SHARED_ENV.template];
  state.runId = process.env[SHARED_ENV.runId];
  state.owner = false;
  if (!state.serverUrl || !state.runId)
    throw new Error(`${SHARED_ENV.template} is set without ${SHARED_ENV.serverUrl} and ${SHARED_ENV.runId}`);
}

async function startServer(): Promise<void> {
  if (process.env.DATABASE_URL) {
    state.serverUrl = process.env.DATABASE_URL;
  } else {
    state.embedded = await startEmbeddedPostgres(path.resolve('data/test-pg'));
    state.serverUrl = state.embedded.url;
  }
  state.owner = true;
  state.runId = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const templateName = (state.templateName = `bh_tpl_${state.runId}`);
  await admin((c) => c.query(`create database ${templateName}`));
  const db = createDb(withDatabase(state.serverUrl, templateName));
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

/**
 * Starts the server and builds the template now, and publishes them in `process.env` for
 * the worker processes mocha forks after this (they copy the environment when created).
 */
export async function startSharedTestDatabaseServer(): Promise<void> {
  await ensureServer();
  if (!state.owner) return;
  process.env[SHARED_ENV.serverUrl] = state.serverUrl;
  process.env[SHARED_ENV.template] = state.templateName;
  process.env[SHARED_ENV.runId] = state.runId;
}

/**
 * Drops the databases this process created; in the process that started the server, also
 * every other database of the run (a worker that died could not drop its own) and the
 * template, then stops the embedded server.
 */
export async function stopTestDatabaseServer(): Promise<void> {
  if (!state.starting) return;
  await state.starting.catch(() => {});
  if (!state.serverUrl) {
    state.starting = undefined;
    return;
  }
  await admin(async (c) => {
    const names = new Set(state.created);
    if (state.owner) {
      const { rows } = await c.query<{ datname: string }>('select datname from pg_database where starts_with(datname, $1)', [
        `bh_t_${state.runId}_`,
      ]);
      for (const row of rows) names.add(row.datname);
      if (state.templateName) names.add(state.templateName);
    }
    for (const name of names) await c.query(`drop database if exists ${name} with (force)`);
  });
  state.created.clear();
  if (state.owner) {
    await state.embedded?.stop();
    for (const name of Object.values(SHARED_ENV)) delete process.env[name];
  }
  state.embedded = state.serverUrl = state.templateName = state.runId = state.owner = state.starting = undefined;
}

export interface TestDatabase {
  db: Db;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated, empty database of its own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  await ensureServer();
  const name = `bh_t_${state.runId}_${process.pid}_${randomBytes(4).toString('hex')}`;
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
