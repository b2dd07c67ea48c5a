import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from '../logger.ts';

// Postgres returns bigint (count(*), int8) and numeric as strings; every caller wants
// numbers, so they are converted here once. Values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number.parseFloat(value));

export type Db = Knex;

/** Next to this module's own tree: `migrations/` under tsx, `dist/migrations/` compiled (`npm run build`). */
export const migrationsDirectory = fileURLToPath(new URL('../../migrations', import.meta.url));

/**
 * The migrations, as the knex CLI and the tests run them (TypeScript, under tsx) and as `npm
 * start` does (their JavaScript, compiled into dist/). Either way a migration is recorded by its
 * source name (`….ts`), so a database migrated by one is current for the other.
 */
export const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    const files = await readdir(migrationsDirectory);
    return files.filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts')).sort();
  },
  getMigrationName: (file) => file.replace(/\.js$/, '.ts'),
  getMigration: (file) => import(pathToFileURL(path.join(migrationsDirectory, file)).href),
};

/**
 * How long a query waits for a pooled connection before failing (a 503). Queries take
 * milliseconds, so a wait this long means the database cannot be reached (or is swamped);
 * Knex's default of 60 s would hold requests until clients give up.
 */
export const ACQUIRE_CONNECTION_TIMEOUT_MS = 5_000;

/** Knex's warnings about a failed acquire or a broken connection: one per request during an outage. */
const CONNECTION_NOISE = /^(Acquire connection error|Connection Error):/;

/**
 * Knex's messages as log lines instead of console output. Its connection warnings come with
 * a stack, once per failed query; the outage itself is logged once (src/db/health.ts), so
 * they go to debug, first line only.
 */
function knexLog(logger: Logger): Knex.Logger {
  const text = (message: unknown) => (typeof message === 'string' ? message : JSON.stringify(message));
  const warn = (message: unknown) => {
    const line = text(message);
    if (CONNECTION_NOISE.test(line)) logger.debug({ knex: line.split('\n')[0] }, 'knex connection warning');
    else logger.warn({ knex: line }, 'knex warning');
  };
  return {
    warn,
    // Knex calls `deprecate` with its finished message, whatever its types say.
    deprecate: warn,
    error: (message) => logger.error({ knex: text(message) }, 'knex error'),
    debug: (message) => logger.debug({ knex: text(message) }, 'knex debug'),
  };
}

/** Without a logger, Knex writes its messages to the console (the CLI and scripts). */
export function createDb(connectionString: string, pool: { min?: number; max?: number } = {}, logger?: Logger): Db {
  return knexFactory({
    client: 'pg',
    // No JIT: every query here is meant to take milliseconds, and compiling one that the
    // planner guesses to be costly took 20-30 ms, longer than running it.
    connection: { connectionString, application_name: 'bench-leaderboard', options: '-c jit=off' },
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    acquireConnectionTimeout: ACQUIRE_CONNECTION_TIMEOUT_MS,
    migrations: { migrationSource, tableName: 'knex_migrations' },
    ...(logger ? { log: knexLog(logger) } : {}),
  });
}

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest({ migrationSource });
}

/** True when the database answers a trivial query within `timeoutMs`. */
export async function databaseAnswers(db: Db, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = db.raw('select 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Statement shapes run as named prepared statements; beyond the cap, queries run unnamed. */
const preparedNames = new Set<string>();
const PREPARED_SHAPES_CAP = 200;

/**
 * Runs a query as a named prepared statement, so each pooled connection plans a shape
 * once and Postgres can reuse the plan: at a million runs, planning a leaderboard page
 * took 1.4-1.9 ms, longer than running it. Values stay parameters (constants that
 * partial indexes depend on must be literals in the SQL). The number of shapes is capped,
 * so a stream of odd queries cannot grow every connection's statement cache without
 * bound. Inside a transaction the query runs on the transaction's connection as usual.
 */
export async function queryPrepared<Row>(db: Db, query: Knex.QueryBuilder | Knex.Raw): Promise<Row[]> {
  const { sql, bindings } = query.toSQL().toNative();
  return runPrepared<Row>(db, preparedName(sql), sql, bindings as unknown[]);
}

const preparedName = (sql: string) => `bh_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;

async function runPrepared<Row>(db: Db, name: string, sql: string, values: unknown[]): Promise<Row[]> {
  if (db.isTransaction || (!preparedNames.has(name) && preparedNames.size >= PREPARED_SHAPES_CAP)) {
    const result = await db.raw(sql.replace(/\$(\d+)/g, '?'), values as Knex.RawBinding[]);
    return result.rows as Row[];
  }
  preparedNames.add(name);
  const connection = (await db.client.acquireConnection()) as pg.Client;
  try {
    const result = await connection.query<Row & pg.QueryResultRow>({ name, text: sql, values });
    return result.rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/**
 * A statement whose text is fixed in code ($1, $2 parameters), run as `queryPrepared` runs
 * a built query but without building it or hashing its text per call: for the hottest reads.
 */
export function preparedStatement<Row>(sql: string): (db: Db, values: unknown[]) => Promise<Row[]> {
  const name = preparedName(sql);
  return (db, values) => runPrepared<Row>(db, name, sql, values);
}
