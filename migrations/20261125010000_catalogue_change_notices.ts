import type { Knex } from 'knex';

/**
 * The read index (src/runs/read-index) keeps what names resolve to: a model's tree, the hardware
 * profiles a GPU or chip name matches, a username's user. These triggers tell every instance
 * when that may have changed, with `catalogue` on the runs' channel (so it is ordered with
 * the run notices and the writers' catch-up markers): after a statement that added or
 * removed rows of models, hardware profiles or users, or changed a model's place in a tree,
 * a profile, or a username. Only rows really touched count: a submission's
 * `insert ... on conflict do nothing` of a profile that exists, or a change to a model's run
 * count or a user's password, sends nothing, so the resolutions survive ordinary writes.
 */
const CHANNEL = 'speed_test_runs_changed';
const WATCHED: readonly (readonly [table: string, changed: string])[] = [
  [
    'models',
    'o.hf_id is distinct from n.hf_id or o.base_hf_id is distinct from n.base_hf_id or o.base_model_id is distinct from n.base_model_id',
  ],
  // Any column of a profile can take part in a name search (hardware_search, memory_gb are derived).
  ['hardware_profiles', 'o is distinct from n'],
  ['users', 'o.username is distinct from n.username'],
];

const notify = `perform pg_notify('${CHANNEL}', 'catalogue')`;

export async function up(knex: Knex): Promise<void> {
  for (const [table, changed] of WATCHED) {
    await knex.raw(`
      create function ${table}_catalogue_notify() returns trigger language plpgsql as $$
      begin
        -- One branch per operation: a transition table exists only for the operations that have it.
        if tg_op = 'TRUNCATE' then
          ${notify};
        elsif tg_op = 'INSERT' then
          if exists (select 1 from new_rows) then ${notify}; end if;
        elsif tg_op = 'DELETE' then
          if exists (select 1 from old_rows) then ${notify}; end if;
        elsif exists (select 1 from old_rows o join new_rows n on n.id = o.id where ${changed}) then
          ${notify};
        end if;
        return null;
      end $$`);
    const triggers = {
      insert: 'referencing new table as new_rows',
      update: 'referencing old table as old_rows new table as new_rows',
      delete: 'referencing old table as old_rows',
      truncate: '',
    };
    for (const [op, referencing] of Object.entries(triggers)) {
      await knex.raw(`create trigger ${table}_catalogue_notify_${op} after ${op} on ${table} ${referencing}
        for each statement execute function ${table}_catalogue_notify()`);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table] of WATCHED) {
    for (const op of ['insert', 'update', 'delete', 'truncate'])
      await knex.raw(`drop trigger if exists ${table}_catalogue_notify_${op} on ${table}`);
    await knex.raw(`drop function if exists ${table}_catalogue_notify()`);
  }
}
