import type { Knex } from 'knex';

/**
 * Approved runs counted per cell of the five main leaderboard filters (hardware class,
 * memory tier, engine, quantization, parameter size): about 25,000 cells at a million
 * runs. The exact total of any combination of those filters is a sum over the cells,
 * where the pair table (run-count migrations) stops at two filters. Kept by statement
 * triggers in the writing transaction, like the pair table.
 */
const CELL = 'hw_class, mem_tier, engine_name, quantization, param_bucket';

function apply(rows: 'new_rows' | 'old_rows', sign: '+' | '-'): string {
  return `
    insert into speed_test_run_cube as c (${CELL}, n)
    select ${CELL}, ${sign}count(*) from ${rows} where status = 'APPROVED' group by ${CELL}
    on conflict (${CELL}) do update set n = c.n + excluded.n;`;
}

/** Counts every approved run into the cube afresh (after a bulk load that skipped the triggers). */
export async function rebuildRunCube(knex: Knex): Promise<void> {
  await knex.raw('truncate speed_test_run_cube');
  await knex.raw(`insert into speed_test_run_cube (${CELL}, n)
    select ${CELL}, count(*) from speed_test_runs where status = 'APPROVED' group by ${CELL}`);
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table speed_test_run_cube (
    hw_class varchar(16) not null, mem_tier smallint, engine_name varchar(64) not null,
    quantization varchar(64) not null, param_bucket smallint, n integer not null)`);
  // Runs without a tier or a size still have a cell: null is a value here.
  await knex.raw(`create unique index speed_test_run_cube_cell on speed_test_run_cube (${CELL}) nulls not distinct`);
  await knex.raw(`
    create function speed_test_run_cube_sync() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then ${apply('old_rows', '-')}
      end if;
      if tg_op in ('INSERT', 'UPDATE') then ${apply('new_rows', '+')}
      end if;
      return null;
    end $$`);
  await knex.raw(`create trigger speed_test_run_cube_insert after insert on speed_test_runs
    referencing new table as new_rows for each statement execute function speed_test_run_cube_sync()`);
  await knex.raw(`create trigger speed_test_run_cube_update after update on speed_test_runs
    referencing old table as old_rows new table as new_rows for each statement execute function speed_test_run_cube_sync()`);
  await knex.raw(`create trigger speed_test_run_cube_delete after delete on speed_test_runs
    referencing old table as old_rows for each statement execute function speed_test_run_cube_sync()`);
  await rebuildRunCube(knex);
}

export async function down(knex: Knex): Promise<void> {
  for (const op of ['insert', 'update', 'delete']) await knex.raw(`drop trigger if exists speed_test_run_cube_${op} on speed_test_runs`);
  await knex.raw('drop function if exists speed_test_run_cube_sync()');
  await knex.raw('drop table if exists speed_test_run_cube');
}
