import type { Knex } from 'knex';
import { createSyncTriggers, dropSyncTriggers, syncFunctionSql } from './sync-triggers.ts';

/**
 * Approved runs counted per cell of the five main leaderboard filters (hardware class,
 * memory tier, engine, quantization, parameter size) in speed_test_run_cube: about 25,000
 * cells at a million runs. The exact total of any combination of those filters is a sum
 * over the cells, where the count table (run-counts.ts) stops at two filters. Kept by
 * statement triggers in the writing transaction, like the count table.
 *
 * Installed by 20261122060000_run_cube and frozen: never edit the cells or the SQL after
 * that migration has shipped; change the cube with new definitions and a new migration.
 */
export const RUN_CUBE_CELL = 'hw_class, mem_tier, engine_name, quantization, param_bucket';

/** The cube's trigger function. */
export const runCubeSyncFunctionSql = syncFunctionSql(
  'speed_test_run_cube',
  (rows, sign) => `
    insert into speed_test_run_cube as c (${RUN_CUBE_CELL}, n)
    select ${RUN_CUBE_CELL}, ${sign}count(*) from ${rows} where status = 'APPROVED' group by ${RUN_CUBE_CELL}
    on conflict (${RUN_CUBE_CELL}) do update set n = c.n + excluded.n;`,
);

/** The cube table, its triggers, and the runs already stored counted into it. */
export async function createRunCube(knex: Knex): Promise<void> {
  await knex.raw(`create table speed_test_run_cube (
    hw_class varchar(16) not null, mem_tier smallint, engine_name varchar(64) not null,
    quantization varchar(64) not null, param_bucket smallint, n integer not null)`);
  // Runs without a tier or a size still have a cell: null is a value here.
  await knex.raw(`create unique index speed_test_run_cube_cell on speed_test_run_cube (${RUN_CUBE_CELL}) nulls not distinct`);
  await knex.raw(runCubeSyncFunctionSql);
  await createSyncTriggers(knex, 'speed_test_run_cube');
  await rebuildRunCube(knex);
}

export async function dropRunCube(knex: Knex): Promise<void> {
  await dropSyncTriggers(knex, 'speed_test_run_cube');
  await knex.raw('drop table if exists speed_test_run_cube');
}

/** Counts every approved run into the cube afresh (after a bulk load that skipped the triggers). */
export async function rebuildRunCube(knex: Knex): Promise<void> {
  await knex.raw('truncate speed_test_run_cube');
  await knex.raw(`insert into speed_test_run_cube (${RUN_CUBE_CELL}, n)
    select ${RUN_CUBE_CELL}, count(*) from speed_test_runs where status = 'APPROVED' group by ${RUN_CUBE_CELL}`);
}
