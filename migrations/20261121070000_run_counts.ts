import type { Knex } from 'knex';
import { createRunCounts, dropRunCounts, runCountLayoutV1 } from '../src/runs/read-models/run-counts.ts';

/**
 * Exact numbers of approved runs per filter value, kept by statement-level triggers in
 * the same transaction as every write to the runs, so the leaderboard answers `total`
 * for no filter or one filter without counting a million rows. Combinations still count.
 */
export async function up(knex: Knex): Promise<void> {
  await createRunCounts(knex, runCountLayoutV1);
}

export async function down(knex: Knex): Promise<void> {
  await dropRunCounts(knex);
}
