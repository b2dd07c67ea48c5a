import type { Knex } from 'knex';

/**
 * The read index (src/read-index) keeps what names resolve to: a model's tree, the hardware
 * profiles a GPU or chip name matches, a username's user. These triggers tell every instance
 * when that may have changed, with `catalogue` on the runs' channel (so it is ordered with
 * the run notices and the writers' catch-up markers): after any statement that adds or
 * removes models, hardware profiles or users, or changes a model's place in a tree, a
 * profile, or a username. Columns no name resolves through (a model's run count, a user's
 * password) do not notify.
 */
const CHANNEL = 'speed_test_runs_changed';
const WATCHED: readonly (readonly [table: string, updateOf: string])[] = [
  ['models', 'update of hf_id, base_hf_id, base_model_id'],
  // Every column of a profile can take part in a name search (hardware_search, memory_gb are derived).
  ['hardware_profiles', 'update'],
  ['users', 'update of username'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function catalogue_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('${CHANNEL}', 'catalogue');
      return null;
    end $$`);
  for (const [table, update] of WATCHED) {
    await knex.raw(`create trigger ${table}_catalogue_notify after insert or delete or truncate or ${update} on ${table}
      for each statement execute function catalogue_notify()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table] of WATCHED) await knex.raw(`drop trigger if exists ${table}_catalogue_notify on ${table}`);
  await knex.raw('drop function if exists catalogue_notify()');
}
