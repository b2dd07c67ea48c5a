import type { Knex } from 'knex';

/**
 * The fingerprint of the plausibility rules the stored verdicts were judged by (one row).
 * When a deploy changes the rules (hardware catalogue, bits table, factors, matching), the
 * first instance to start re-judges the stored runs and records the new fingerprint, so
 * verdicts never stay judged by rules the service no longer applies.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('verdict_rules', (t) => {
    t.smallint('id').primary().defaultTo(1);
    t.text('fingerprint').notNullable();
    t.timestamp('judged_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table verdict_rules add constraint verdict_rules_one_row check (id = 1)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('verdict_rules');
}
