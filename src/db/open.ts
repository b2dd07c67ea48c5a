import path from 'node:path';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { startEmbeddedPostgres } from './embedded.ts';
import { createDb, migrateLatest, type Db } from './knex.ts';

export interface OpenDatabase {
  db: Db;
  /** Connection string of `db`. */
  url: string;
  close(): Promise<void>;
}

/**
 * The database behind the app, migrated: `DATABASE_URL` when set, else an embedded
 * Postgres under `<DATA_DIR>/db`. `close()` also stops the embedded server.
 */
export async function openDatabase(config: Config, logger: Logger): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let stopEmbedded = async () => {};
  if (!url) {
    const dataDir = path.join(config.dataDir, 'db');
    logger.info({ dataDir }, 'starting embedded Postgres');
    const embedded = await startEmbeddedPostgres(dataDir, (message) => logger.debug({ postgres: message }));
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const db = createDb(url, {}, logger);
  const close = async () => {
    await db.destroy();
    await stopEmbedded();
  };
  try {
    await migrateLatest(db);
  } catch (error) {
    await close();
    throw error;
  }
  return { db, url, close };
}
