import type { Knex } from 'knex';

/**
 * Exact numbers of approved runs per filter value, kept by statement-level triggers in
 * the same transaction as every write to the runs, so the leaderboard answers `total`
 * for no filter or one filter without counting a million rows. Combinations still count.
 */
const DIMENSIONS = `(values
    ('all', ''),
    ('hwClass', r.hw_class),
    ('memTier', r.mem_tier::text),
    ('engineName', r.engine_name),
    ('quantization', r.quantization),
    ('verified', r.user_verified::text),
    ('paramSize', r.param_bucket::text),
    ('os', r.os_family),
    ('backend', r.backend),
    ('isMoE', r.model_is_moe::text),
    ('contextLen', r.ctx_bucket::text),
    ('batchSize', least(r.batch_size, 8)::text),
    ('modelId', r.model_id::text)
  ) as d(dimension, value)`;

function apply(rows: 'new_rows' | 'old_rows', sign: '+' | '-'): string {
  return `
    insert into speed_test_run_counts (dimension, value, n)
    select d.dimension, d.value, ${sign}count(*) from ${rows} r cross join lateral ${DIMENSIONS}
    where r.status = 'APPROVED' and d.value is not null
    group by d.dimension, d.value
    on conflict (dimension, value) do update set n = speed_test_run_counts.n + excluded.n;`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table speed_test_run_counts (
      dimension text not null,
      value text not null,
      n bigint not null,
      primary key (dimension, value)
    )`);
  await knex.raw(`
    create function speed_test_run_counts_sync() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then ${apply('old_rows', '-')}
      end if;
      if tg_op in ('INSERT', 'UPDATE') then ${apply('new_rows', '+')}
      end if;
      return null;
    end $$`);
  await knex.raw(`create trigger speed_test_run_counts_insert after insert on speed_test_runs
    referencing new table as new_rows for each statement execute function speed_test_run_counts_sync()`);
  await knex.raw(`create trigger speed_test_run_counts_update after update on speed_test_runs
    referencing old table as old_rows new table as new_rows for each statement execute function speed_test_run_counts_sync()`);
  await knex.raw(`create trigger speed_test_run_counts_delete after delete on speed_test_runs
    referencing old table as old_rows for each statement execute function speed_test_run_counts_sync()`);
  // Runs stored before the triggers.
  await knex.raw(`
    insert into speed_test_run_counts (dimension, value, n)
    select d.dimension, d.value, count(*) from speed_test_runs r cross join lateral ${DIMENSIONS}
    where r.status = 'APPROVED' and d.value is not null
    group by d.dimension, d.value`);
}

export async function down(knex: Knex): Promise<void> {
  for (const op of ['insert', 'update', 'delete']) await knex.raw(`drop trigger if exists speed_test_run_counts_${op} on speed_test_runs`);
  await knex.raw('drop function if exists speed_test_run_counts_sync()');
  await knex.raw('drop table if exists speed_test_run_counts');
}
