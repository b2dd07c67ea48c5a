// Used by the knex CLI (`npm run migrate`); the server migrates by itself at start-up.
import { migrationsDirectory } from './src/db/knex.ts';

export default {
  client: 'pg',
  connection: process.env.DATABASE_URL,
  migrations: { directory: migrationsDirectory, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
};
