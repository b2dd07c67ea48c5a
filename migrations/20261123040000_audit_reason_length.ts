import type { Knex } from 'knex';

/**
 * Quality reviews log their notes (up to 2000 characters, the length of a suite's, dataset's
 * or run's admin notes) as the audit entry's reason; speed-test reasons were at most 500.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table admin_audit_log alter column reason type varchar(2000)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table admin_audit_log alter column reason type varchar(500) using left(reason, 500)');
}
