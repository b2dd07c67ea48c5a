import type { Knex } from 'knex';

/**
 * Admin moderation: why and by whom a speed-test run was rejected, and the audit log of
 * every admin action. The log keeps the actor's username and the target's label as they
 * were, so an entry stays readable after the account or row is gone.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.string('rejected_reason', 500);
    t.timestamp('rejected_at', { useTz: true });
    t.uuid('rejected_by').references('users.id').onDelete('SET NULL');
  });

  await knex.schema.createTable('admin_audit_log', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('actor_id').references('users.id').onDelete('SET NULL');
    t.string('actor_username', 32).notNullable();
    t.string('action', 32).notNullable();
    t.string('target_kind', 32).notNullable();
    t.uuid('target_id').notNullable();
    t.string('target_label', 300).notNullable();
    t.string('reason', 500);
    // clock_timestamp(), not now(): two actions in one transaction still get an order.
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
  });
  await knex.raw('create index admin_audit_log_newest on admin_audit_log (created_at desc, id desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('admin_audit_log');
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.dropColumn('rejected_by');
    t.dropColumn('rejected_at');
    t.dropColumn('rejected_reason');
  });
}
