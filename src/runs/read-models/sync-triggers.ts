import type { Knex } from 'knex';

/**
 * Count tables over the runs (the run counts, the cube) are kept by one plpgsql function
 * each, `<table>_sync()`, fired once per statement on speed_test_runs with the changed
 * rows as transition tables: the old rows are taken away, the new ones added, in the
 * writing transaction.
 */
export type ChangedRows = 'old_rows' | 'new_rows';

/** The SQL that adds (`+`) or takes away (`-`) the changed rows' counts. */
export type ApplyChange = (rows: ChangedRows, sign: '+' | '-') => string;

/** `create or replace function <table>_sync()`; the body's text is what the database stores. */
export function syncFunctionSql(table: string, apply: ApplyChange): string {
  return `
    create or replace function ${table}_sync() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then ${apply('old_rows', '-')}
      end if;
      if tg_op in ('INSERT', 'UPDATE') then ${apply('new_rows', '+')}
      end if;
      return null;
    end $$`;
}

/** Each statement trigger and the transition tables it hands to the function. */
const TRANSITIONS = {
  insert: 'new table as new_rows',
  update: 'old table as old_rows new table as new_rows',
  delete: 'old table as old_rows',
} as const;

const operations = Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[];

/** The insert, update and delete triggers on speed_test_runs that run `<table>_sync()` (created after the function). */
export async function createSyncTriggers(knex: Knex, table: string): Promise<void> {
  for (const op of operations) {
    await knex.raw(`create trigger ${table}_${op} after ${op} on speed_test_runs
    referencing ${TRANSITIONS[op]} for each statement execute function ${table}_sync()`);
  }
}

/** Drops the triggers and the function. */
export async function dropSyncTriggers(knex: Knex, table: string): Promise<void> {
  for (const op of operations) await knex.raw(`drop trigger if exists ${table}_${op} on speed_test_runs`);
  await knex.raw(`drop function if exists ${table}_sync()`);
}
