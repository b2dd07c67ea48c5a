import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The hub names a model's base by id; the link by row id is made when both are catalogued.
  await knex.schema.alterTable('models', (t) => {
    t.string('base_hf_id', 256);
  });
  await knex.raw('create index models_base_hf_id_lower on models (lower(base_hf_id))');

  await knex.schema.createTable('hardware_profiles', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // sha256 of the normalised profile: identical setups share one row (DECISIONS.md).
    t.string('content_hash', 64).notNullable().unique();
    t.string('hw_class', 16).notNullable();
    t.string('gpu_name', 128);
    t.integer('gpu_count');
    t.double('vram_gb');
    t.double('total_vram_gb');
    t.boolean('is_heterogeneous_gpu').notNullable().defaultTo(false);
    t.string('chip_vendor', 64);
    t.string('chip_family', 64);
    t.string('chip_variant', 64);
    t.double('unified_memory_gb');
    t.string('cpu', 128);
    t.double('ram_gb');
    t.string('os', 64);
    /** The whole normalised profile as returned by the API. */
    t.jsonb('details').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "alter table hardware_profiles add constraint hardware_profiles_hw_class_check check (hw_class in ('DISCRETE_GPU','UNIFIED','CPU_ONLY'))",
  );

  await knex.schema.createTable('engines', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('content_hash', 64).notNullable().unique();
    t.string('name', 64).notNullable();
    t.string('version', 512);
    t.string('repository', 512);
    t.string('build', 256);
    t.string('commit', 64);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('speed_test_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('model_id').notNullable().references('models.id');
    t.uuid('hardware_id').notNullable().references('hardware_profiles.id');
    t.uuid('engine_id').notNullable().references('engines.id');
    t.string('status', 16).notNullable().defaultTo('APPROVED');
    t.string('quantization', 64).notNullable();
    t.string('model_revision', 128).notNullable();
    t.string('backend', 64);
    t.double('tok_s_out');
    t.double('tok_s_prefill');
    t.double('tok_s_total');
    t.double('ttft_ms');
    t.double('peak_vram_gb');
    t.integer('prompt_tokens').notNullable();
    t.integer('output_tokens').notNullable();
    t.integer('context_length').notNullable();
    t.integer('batch_size').notNullable();
    t.integer('prefill_tokens').notNullable();
    t.jsonb('gpu_power_watts');
    t.double('total_power_watts');
    t.jsonb('hardware_cost');
    t.text('notes');
    /** Normalised engine flags: explicit fields merged over those parsed from commandSnippet. */
    t.jsonb('engine_flags');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['status', 'created_at']);
    t.index(['model_id', 'created_at']);
    t.index(['user_id', 'created_at']);
    t.index(['hardware_id']);
  });
  await knex.raw(
    "alter table speed_test_runs add constraint speed_test_runs_status_check check (status in ('APPROVED','PENDING','REJECTED'))",
  );

  // One row per user and bucket: the last accepted submission, for the per-user window.
  await knex.schema.createTable('submission_windows', (t) => {
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('bucket', 32).notNullable();
    t.timestamp('last_submitted_at', { useTz: true }).notNullable();
    t.primary(['user_id', 'bucket']);
  });

  // Idempotency-Key replays: the original 201 is returned for a retry with the same body.
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('key', 255).notNullable();
    t.string('scope', 64).notNullable();
    t.string('request_hash', 64).notNullable();
    t.integer('status_code');
    t.jsonb('response');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['user_id', 'scope', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
  await knex.schema.dropTable('submission_windows');
  await knex.schema.dropTable('speed_test_runs');
  await knex.schema.dropTable('engines');
  await knex.schema.dropTable('hardware_profiles');
  await knex.raw('drop index if exists models_base_hf_id_lower');
  await knex.schema.alterTable('models', (t) => {
    t.dropColumn('base_hf_id');
  });
}
