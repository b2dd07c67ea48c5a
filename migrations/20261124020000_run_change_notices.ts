import type { Knex } from 'knex';

/**
 * Every app instance keeps a read index of the approved runs in memory (src/runs/read-index).
 * These triggers tell the instances what changed: after each statement that writes runs
 * (or rewrites their stored documents, as a change to a model or a user does), the ids of
 * the rows it touched are sent with NOTIFY on `speed_test_runs_changed`, 200 ids per
 * notice (the payload limit is 8,000 bytes). A statement touching more than 20,000 runs,
 * and a TRUNCATE, send `*` instead: listeners rebuild from the table. Notices go out when
 * the transaction commits, in commit order, and not at all if it rolls back.
 */
const CHANNEL = 'speed_test_runs_changed';
const TABLES = [
  ['speed_test_runs', 'id'],
  ['speed_test_run_documents', 'run_id'],
] as const;

const notifyFunction = (table: string, idColumn: string) => `
  create or replace function ${table}_notify() returns trigger language plpgsql as $$
  declare
    changed text[];
    n int;
  begin
    if tg_op = 'TRUNCATE' then
      perform pg_notify('${CHANNEL}', '*');
      return null;
    elsif tg_op = 'DELETE' then
      select array_agg(distinct ${idColumn}::text) into changed from old_rows;
    else
      select array_agg(distinct ${idColumn}::text) into changed from new_rows;
    end if;
    n := coalesce(array_length(changed, 1), 0);
    if n > 20000 then
      perform pg_notify('${CHANNEL}', '*');
    elsif n > 0 then
      for i in 0 .. (n - 1) / 200 loop
        perform pg_notify('${CHANNEL}', array_to_string(changed[i * 200 + 1 : i * 200 + 200], ','));
      end loop;
    end if;
    return null;
  end $$`;

const TRANSITIONS = {
  insert: 'referencing new table as new_rows',
  update: 'referencing new table as new_rows',
  delete: 'referencing old table as old_rows',
  truncate: '',
} as const;

export async function up(knex: Knex): Promise<void> {
  for (const [table, idColumn] of TABLES) {
    await knex.raw(notifyFunction(table, idColumn));
    for (const [op, referencing] of Object.entries(TRANSITIONS)) {
      await knex.raw(
        `create trigger ${table}_notify_${op} after ${op} on ${table} ${referencing} for each statement execute function ${table}_notify()`,
      );
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table] of TABLES) {
    for (const op of Object.keys(TRANSITIONS)) await knex.raw(`drop trigger if exists ${table}_notify_${op} on ${table}`);
    await knex.raw(`drop function if exists ${table}_notify()`);
  }
}
