import type { Knex } from 'knex';

/** Approved runs per model, kept by the submission and moderation paths (no count(*) per listing). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('models', (t) => {
    t.integer('benchmark_count').notNullable().defaultTo(0);
  });
  await knex.raw(`
    update models m set benchmark_count = c.n
    from (select model_id, count(*)::int as n from speed_test_runs where status = 'APPROVED' group by model_id) c
    where c.model_id = m.id`);
  await knex.raw('create index models_benchmark_count on models (benchmark_count desc, hf_id)');
  await knex.raw(
    "create index models_search_trgm on models using gin ((lower(hf_id) || ' ' || lower(display_name) || ' ' || coalesce(lower(family), '')) gin_trgm_ops)",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists models_search_trgm');
  await knex.raw('drop index if exists models_benchmark_count');
  await knex.schema.alterTable('models', (t) => {
    t.dropColumn('benchmark_count');
  });
}
