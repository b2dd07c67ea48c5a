import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

// Postgres returns bigint (count(*), int8) and numeric as strings; every caller wants
// numbers, so they are converted here once. Values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number.parseFloat(value));

export type Db = Knex;

export const migrationsDirectory = fileURLToPath(new URL('../../migrations', import.meta.url));

export function createDb(connectionString: string, pool: { min?: number; max?: number } = {}): Db {
  return knexFactory({
    client: 'pg',
    // No JIT: every query here is meant to take milliseconds, and compiling one that the
    // planner guesses to be costly took 20-30 ms, longer than running it.
    connection: { connectionString, application_name: 'bench-leaderboard', options: '-c jit=off' },
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    migrations: { directory: migrationsDirectory, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
  });
}

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest({ directory: migrationsDirectory, loadExtensions: ['.ts'] });
}

/** True when the database answers a trivial query within `timeoutMs`. */
export async function databaseAnswers(db: Db, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = db.raw('select 1').then(() => true, () => false);
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
  const name = `bh_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
  if (db.isTransaction || (!preparedNames.has(name) && preparedNames.size >= PREPARED_SHAPES_CAP)) {
    const result = await db.raw(sql.replace(/\$(\d+)/g, '?'), bindings as Knex.RawBinding[]);
    return result.rows as Row[];
  }
  preparedNames.add(name);
  const connection = (await db.client.acquireConnection()) as pg.Client;
  try {
    const result = await connection.query<Row & pg.QueryResultRow>({ name, text: sql, values: bindings as unknown[] });
    return result.rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}
