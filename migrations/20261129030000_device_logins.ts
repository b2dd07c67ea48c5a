import type { Knex } from 'knex';

/**
 * Device login for command-line clients (RFC 8628; DECISIONS.md "Real clients"): a client
 * asks for a device code and a user code, the person approves or denies at /device, and the
 * client's poll is answered once with a new API key. Both codes are kept only as SHA-256.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('device_logins', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('device_code_hash', 64).notNullable().unique();
    t.string('user_code_hash', 64).notNullable().unique();
    t.string('client_id', 64).notNullable();
    t.string('scope', 256);
    t.string('status', 16).notNullable().defaultTo('PENDING');
    t.uuid('user_id').references('users.id').onDelete('CASCADE');
    t.integer('interval_seconds').notNullable();
    t.timestamp('last_polled_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    `alter table device_logins add constraint device_logins_status_known check (status in ('PENDING', 'APPROVED', 'DENIED', 'CONSUMED'))`,
  );
  await knex.raw('create index device_logins_expiry on device_logins (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('device_logins');
}
