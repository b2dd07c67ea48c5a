import type { Knex } from 'knex';

/**
 * The leaderboard walks an index in rank order and stops after one page. For filters
 * whose matches are rare or sit at the slow end (engine, quantization, model size), the
 * walk of the general index read nearly every row (3-4 s at a million runs in
 * `npm run bench`); with an index led by the filter it reads only the matches.
 */
const INDEXES = [
  ['board_engine', 'engine_name'],
  ['board_quantization', 'quantization'],
  ['board_param', 'param_bucket'],
] as const;

export async function up(knex: Knex): Promise<void> {
  for (const [name, column] of INDEXES) {
    await knex.raw(
      `create index speed_test_runs_${name} on speed_test_runs (${column}, tok_s_out desc nulls last, created_at, id) where status = 'APPROVED'`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`drop index if exists speed_test_runs_${name}`);
}
