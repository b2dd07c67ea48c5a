import type { Knex } from 'knex';

/**
 * Quality evaluations: suites (the whole suite document as JSON, so a registration is one
 * row and GET answers it as stored), sharded datasets with their shards, quality runs with
 * the server's per-task scores, and the runs' per-item traces (artifacts).
 *
 * Statuses follow DECISIONS.md "Statuses": PENDING -> APPROVED | REJECTED (with admin
 * notes); suites and datasets may be WITHDRAWN by their owner.
 */
const REVIEW_STATUSES = "('PENDING','APPROVED','REJECTED','WITHDRAWN')";

function reviewColumns(knex: Knex, t: Knex.CreateTableBuilder): void {
  t.string('status', 16).notNullable().defaultTo('PENDING');
  t.string('admin_notes', 2000);
  t.uuid('reviewed_by').references('users.id').onDelete('SET NULL');
  t.timestamp('reviewed_at', { useTz: true });
  t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('quality_datasets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('slug', 64).notNullable();
    t.string('name', 256).notNullable();
    t.string('description', 4000);
    t.string('license', 128);
    t.string('source_url', 2048);
    t.integer('shard_count').notNullable();
    t.integer('item_count').notNullable();
    t.uuid('created_by').notNullable().references('users.id').onDelete('CASCADE');
    reviewColumns(knex, t);
    t.index(['created_by', 'created_at']);
    t.index(['status', 'created_at']);
  });
  await knex.raw(`alter table quality_datasets add constraint quality_datasets_status_check check (status in ${REVIEW_STATUSES})`);
  // A withdrawn submission gives its slug back.
  await knex.raw("create unique index quality_datasets_slug_unique on quality_datasets (slug) where status <> 'WITHDRAWN'");

  await knex.schema.createTable('quality_dataset_shards', (t) => {
    t.uuid('dataset_id').notNullable().references('quality_datasets.id').onDelete('CASCADE');
    t.integer('shard_index').notNullable();
    t.string('name', 128);
    t.integer('item_count').notNullable();
    t.jsonb('items').notNullable();
    t.primary(['dataset_id', 'shard_index']);
  });

  await knex.schema.createTable('quality_suites', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('slug', 64).notNullable();
    t.string('name', 256).notNullable();
    t.string('description', 4000);
    t.string('category', 64).notNullable();
    t.string('runner', 32).notNullable();
    t.string('version', 32).notNullable();
    t.string('source_url', 2048);
    t.jsonb('suite_doc').notNullable();
    // Copies of the document's facts that lists, filters and coverage checks read.
    t.specificType('task_keys', 'text[]').notNullable();
    t.specificType('dataset_ids', 'uuid[]').notNullable().defaultTo('{}');
    t.integer('item_count').notNullable();
    t.boolean('official').notNullable().defaultTo(false);
    t.integer('run_count').notNullable().defaultTo(0);
    t.uuid('created_by').notNullable().references('users.id').onDelete('CASCADE');
    reviewColumns(knex, t);
    t.index(['created_by', 'created_at']);
    t.index(['status', 'category']);
  });
  await knex.raw(`alter table quality_suites add constraint quality_suites_status_check check (status in ${REVIEW_STATUSES})`);
  await knex.raw("create unique index quality_suites_slug_unique on quality_suites (slug) where status <> 'WITHDRAWN'");
  await knex.raw("alter table quality_suites add constraint quality_suites_runner_check check (runner in ('CUSTOM','LM_EVAL_HARNESS'))");
  await knex.raw('create index quality_suites_dataset_ids on quality_suites using gin (dataset_ids)');

  await knex.schema.createTable('quality_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('suite_id').notNullable().references('quality_suites.id');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('model_id').notNullable().references('models.id');
    t.uuid('hardware_id').notNullable().references('hardware_profiles.id');
    t.string('hw_class', 16).notNullable();
    t.string('model_revision', 128).notNullable().defaultTo('main');
    t.string('quantization', 64);
    t.string('quant_format', 64);
    t.string('runner_version', 128);
    t.jsonb('run_config');
    t.string('notes', 2000);
    t.string('execution_mode', 32).notNullable();
    t.string('judge_mode', 32).notNullable().defaultTo('NONE');
    // The aggregate, 0-100, computed here from the server's task scores.
    t.double('score').notNullable();
    // [{ key, displayName, weight, score, clientScore, nShots, nSamples, stdError, rescored: { items, ofItems, serverScore, disagreement } | null }]
    t.jsonb('task_results').notNullable();
    t.boolean('rescored').notNullable().defaultTo(false);
    // Largest |client score - server score| over re-scored tasks (fractions), null when none was re-scored.
    t.double('max_disagreement');
    t.integer('artifact_count').notNullable().defaultTo(0);
    t.jsonb('reaction_counts').notNullable().defaultTo('{}');
    reviewColumns(knex, t);
    t.index(['suite_id', 'status', 'score']);
    t.index(['model_id', 'status']);
    t.index(['user_id', 'created_at']);
    t.index(['status', 'created_at']);
  });
  await knex.raw("alter table quality_runs add constraint quality_runs_status_check check (status in ('PENDING','APPROVED','REJECTED'))");
  await knex.raw('alter table quality_runs add constraint quality_runs_score_check check (score >= 0 and score <= 100)');

  await knex.schema.createTable('quality_run_artifacts', (t) => {
    t.uuid('run_id').notNullable().references('quality_runs.id').onDelete('CASCADE');
    t.integer('seq').notNullable();
    t.string('task_key', 64).notNullable();
    t.integer('item_index');
    t.string('prompt_hash', 128);
    t.text('prompt');
    t.text('question');
    t.text('response');
    // The client's item score (pages work out the server's own from the suite's answers).
    t.double('score');
    t.string('judge_model', 256);
    t.double('judge_score');
    t.text('judge_rationale');
    t.double('latency_ms');
    t.text('error');
    t.primary(['run_id', 'seq']);
  });

  // A quality run deleted (with its user) takes the reactions it received along.
  await knex.raw(`
    create function quality_run_reactions_cleanup() returns trigger language plpgsql as $$
    begin
      delete from run_reactions where run_kind = 'quality' and run_id in (select id from old_rows);
      return null;
    end $$`);
  await knex.raw(`create trigger quality_run_reactions_cleanup after delete on quality_runs
    referencing old table as old_rows for each statement execute function quality_run_reactions_cleanup()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists quality_run_reactions_cleanup on quality_runs');
  await knex.raw('drop function if exists quality_run_reactions_cleanup()');
  await knex.raw("delete from run_reactions where run_kind = 'quality'");
  await knex.schema.dropTable('quality_run_artifacts');
  await knex.schema.dropTable('quality_runs');
  await knex.schema.dropTable('quality_suites');
  await knex.schema.dropTable('quality_dataset_shards');
  await knex.schema.dropTable('quality_datasets');
}
