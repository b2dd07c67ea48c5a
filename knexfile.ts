// Used by the knex CLI (`npm run migrate`); the server migrates by itself at start-up.
import { migrationSource } from './src/db/knex.ts';

export default {
  client: 'pg',
  connection: process.env.DATABASE_URL,
  migrations: { migrationSource, tableName: 'knex_migrations' },
};
