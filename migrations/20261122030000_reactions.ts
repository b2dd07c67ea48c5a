import type { Knex } from 'knex';

/**
 * Reactions: one per user per run, for speed-test runs now and quality runs later (keyed
 * by run kind, so no foreign key to either table). Each speed-test run also keeps its
 * counts per emoji, written in the reacting transaction, so lists never aggregate.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('run_reactions', (t) => {
    t.string('run_kind', 16).notNullable();
    t.uuid('run_id').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('emoji', 16).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['run_kind', 'run_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.raw("alter table run_reactions add constraint run_reactions_run_kind_check check (run_kind in ('speed_test', 'quality'))");
  await knex.raw(
    "alter table run_reactions add constraint run_reactions_emoji_check check (emoji in ('fire', 'rocket', '100', 'brain', 'chad'))",
  );

  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.jsonb('reaction_counts').notNullable().defaultTo('{}');
  });

  // A run deleted with its user takes the reactions it received along.
  await knex.raw(`
    create function speed_test_run_reactions_cleanup() returns trigger language plpgsql as $$
    begin
      delete from run_reactions where run_kind = 'speed_test' and run_id in (select id from old_rows);
      return null;
    end $$`);
  await knex.raw(`create trigger speed_test_run_reactions_cleanup after delete on speed_test_runs
    referencing old table as old_rows for each statement execute function speed_test_run_reactions_cleanup()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists speed_test_run_reactions_cleanup on speed_test_runs');
  await knex.raw('drop function if exists speed_test_run_reactions_cleanup()');
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.dropColumn('reaction_counts');
  });
  await knex.schema.dropTable('run_reactions');
}
