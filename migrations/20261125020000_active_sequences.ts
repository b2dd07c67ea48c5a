import type { Knex } from 'knex';

/**
 * Revision 3 buckets the leaderboard's `batchSize` on aggregate active sequences:
 * batchSize x concurrency (numParallel when concurrency is absent, which the run's
 * `concurrency` column already holds; 1 when neither), DECISIONS.md "Buckets". Kept as a
 * stored generated column, so it follows any change to either and both read paths (SQL and
 * the read index) filter on the same number.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'alter table speed_test_runs add column active_sequences integer generated always as (batch_size * coalesce(concurrency, 1)) stored',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table speed_test_runs drop column active_sequences');
}
