import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
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
