import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('setups', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.text('description');
    t.boolean('is_default').notNullable().defaultTo(false);
    // The hardware, engine and flag fields, keyed by their API names; only those set are kept.
    // Nothing filters on them, so one document beats forty-odd nullable columns.
    t.jsonb('config').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // Names are unique per user regardless of case; this index also serves every per-user lookup.
  await knex.raw('create unique index setups_user_name_lower_unique on setups (user_id, lower(name))');
  // At most one default per user, whatever requests race: the database refuses a second.
  await knex.raw('create unique index setups_one_default_per_user on setups (user_id) where is_default');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('setups');
}
