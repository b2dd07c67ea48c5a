import type { Knex } from 'knex';

/**
 * Names no catalogue device matched, placed on a device by an admin (/admin/hardware;
 * DECISIONS.md "Hardware identity"). One row per name as written, per kind of device
 * (`gpu`, `chip`, `cpu`); `name_key` is the name compared as the resolver compares it (case
 * and white space ignored). Runs keep the name as written: only its resolution follows the
 * mapping (src/lib/hardware-mappings.ts holds the in-memory copy the resolver reads).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('hardware_name_mappings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('kind', 8).notNullable();
    t.string('name_key', 256).notNullable();
    t.string('written_name', 256).notNullable();
    t.string('device_name', 256).notNullable();
    t.uuid('mapped_by').references('users.id').onDelete('SET NULL');
    t.string('mapped_by_username', 32).notNullable();
    t.timestamp('mapped_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['kind', 'name_key']);
  });
  await knex.raw(`alter table hardware_name_mappings add constraint hardware_name_mappings_kind check (kind in ('gpu', 'chip', 'cpu'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('hardware_name_mappings');
}
