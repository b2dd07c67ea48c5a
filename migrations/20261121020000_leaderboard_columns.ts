import type { Knex } from 'knex';
import { buckets } from '../src/constants.ts';

/** `case` expression mapping a value onto "(previous, bucket]" buckets; above the last: `above`. */
function bucketCase(column: string, bounds: readonly number[], above: string): string {
  const whens = bounds.map((bound) => `when ${column} <= ${bound} then ${bound}`).join(' ');
  return `case when ${column} is null or ${column} <= 0 then null ${whens} else ${above} end`;
}

const paramBucketCase = `case when model_params is null or model_params <= 0 then null ${buckets.paramSize
  .filter((b) => b.upToB !== null)
  .map((b) => `when model_params <= ${b.upToB} then ${b.bucket}`)
  .join(' ')} else ${buckets.paramSize.at(-1)!.bucket} end`;

/**
 * Copies of the facts the leaderboard filters and sorts on, kept on the run row
 * (filled by the submission service), plus generated bucket and ratio columns, so every
 * list reads one table through its indexes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.string('hw_class', 16);
    t.double('memory_gb');
    t.text('hardware_search');
    t.string('os_family', 8);
    t.string('engine_name', 64);
    t.double('model_params');
    t.string('model_family', 128);
    t.boolean('model_is_moe').notNullable().defaultTo(false);
    t.boolean('user_verified').notNullable().defaultTo(false);
    t.integer('concurrency');
    t.string('kv_cache_dtype', 64);
    t.string('attention_backend', 64);
    t.integer('gpu_layers');
    t.integer('tensor_parallel');
    t.boolean('spec_decoding').notNullable().defaultTo(false);
    t.boolean('mtp_enabled').notNullable().defaultTo(false);
    t.double('power_watts');
    t.double('hardware_cost_usd');
  });
  await knex.raw(`
    alter table speed_test_runs
      add column mem_tier smallint generated always as (${bucketCase('memory_gb', buckets.memTier, 'null')}) stored,
      add column param_bucket smallint generated always as (${paramBucketCase}) stored,
      add column ctx_bucket integer generated always as (${bucketCase('context_length', buckets.contextLen, String(buckets.contextLen.at(-1)))}) stored,
      add column tok_per_watt double precision generated always as (tok_s_out / nullif(power_watts, 0)) stored,
      add column tok_per_dollar double precision generated always as (tok_s_out / nullif(hardware_cost_usd, 0)) stored`);

  // Rows written before these columns existed.
  await knex.raw(`
    update speed_test_runs r set
      hw_class = h.hw_class,
      memory_gb = coalesce(h.total_vram_gb, h.unified_memory_gb, h.ram_gb),
      hardware_search = lower(concat_ws(' | ', h.gpu_name, h.chip_vendor, h.chip_family, h.chip_variant, h.cpu)),
      os_family = case when h.os ~* 'mac|darwin' then 'macos' when h.os ~* 'linux|ubuntu|debian|fedora|arch' then 'linux' when h.os ~* 'win' then 'windows' end,
      engine_name = e.name,
      model_params = m.params,
      model_family = lower(m.family),
      model_is_moe = m.is_moe,
      user_verified = u.is_verified,
      concurrency = coalesce((r.engine_flags->>'concurrency')::int, (r.engine_flags->>'numParallel')::int),
      kv_cache_dtype = r.engine_flags->>'kvCacheDtype',
      attention_backend = r.engine_flags->>'attentionBackend',
      gpu_layers = (r.engine_flags->>'gpuLayers')::int,
      tensor_parallel = (r.engine_flags->>'tensorParallel')::int,
      spec_decoding = coalesce((r.engine_flags->>'specDecoding')::boolean, false),
      mtp_enabled = coalesce((r.engine_flags->>'mtpEnabled')::boolean, false),
      power_watts = coalesce(r.total_power_watts, (h.details->>'powerWatts')::double precision)
    from hardware_profiles h, engines e, models m, users u
    where h.id = r.hardware_id and e.id = r.engine_id and m.id = r.model_id and u.id = r.user_id`);
  await knex.raw('alter table speed_test_runs alter column hw_class set not null, alter column engine_name set not null');

  // The leaderboard: approved runs by speed, ties to the earliest.
  await knex.raw(
    `create index speed_test_runs_board on speed_test_runs (tok_s_out desc nulls last, created_at, id) where status = 'APPROVED'`,
  );
  await knex.raw(
    `create index speed_test_runs_board_hw_class on speed_test_runs (hw_class, tok_s_out desc nulls last, created_at) where status = 'APPROVED'`,
  );
  await knex.raw(
    `create index speed_test_runs_board_mem_tier on speed_test_runs (mem_tier, tok_s_out desc nulls last, created_at) where status = 'APPROVED'`,
  );
  await knex.raw(
    `create index speed_test_runs_board_model on speed_test_runs (model_id, tok_s_out desc nulls last, created_at) where status = 'APPROVED'`,
  );
  await knex.raw(`create index speed_test_runs_hardware_search on speed_test_runs using gin (hardware_search gin_trgm_ops)`);
}

export async function down(knex: Knex): Promise<void> {
  for (const index of ['board', 'board_hw_class', 'board_mem_tier', 'board_model', 'hardware_search']) {
    await knex.raw(`drop index if exists speed_test_runs_${index}`);
  }
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.dropColumns(
      'tok_per_dollar',
      'tok_per_watt',
      'ctx_bucket',
      'param_bucket',
      'mem_tier',
      'hw_class',
      'memory_gb',
      'hardware_search',
      'os_family',
      'engine_name',
      'model_params',
      'model_family',
      'model_is_moe',
      'user_verified',
      'concurrency',
      'kv_cache_dtype',
      'attention_backend',
      'gpu_layers',
      'tensor_parallel',
      'spec_decoding',
      'mtp_enabled',
      'power_watts',
      'hardware_cost_usd',
    );
  });
}
