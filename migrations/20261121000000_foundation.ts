import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pgcrypto');

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('username', 32).notNullable();
    t.string('display_name', 64).notNullable();
    t.text('password_hash').notNullable();
    t.boolean('is_admin').notNullable().defaultTo(false);
    t.boolean('is_verified').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // Usernames are unique regardless of case ("Alice" and "alice" are the same account).
  await knex.raw('create unique index users_username_lower_unique on users (lower(username))');

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('prefix', 8).notNullable();
    // SHA-256 of the whole key, hex; the key itself is never stored.
    t.string('key_hash', 64).notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['user_id', 'created_at']);
  });

  // connect-pg-simple's table, created here so the app never issues DDL at run time.
  await knex.schema.createTable('sessions', (t) => {
    t.string('sid').primary();
    t.json('sess').notNullable();
    t.timestamp('expire', { precision: 6 }).notNullable().index();
  });

  // Fixed-window counters (sign-in, sign-up, ...) kept in Postgres so every app instance shares them.
  await knex.schema.createTable('rate_limit_counters', (t) => {
    t.string('bucket', 32).notNullable();
    t.string('key', 300).notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('count').notNullable();
    t.primary(['bucket', 'key']);
  });

  await knex.schema.createTable('models', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('hf_id', 256).notNullable();
    t.string('display_name', 256).notNullable();
    t.string('family', 128);
    t.double('params');
    t.boolean('params_approximate').notNullable().defaultTo(false);
    t.double('active_params');
    t.boolean('is_moe').notNullable().defaultTo(false);
    t.uuid('base_model_id').references('models.id').onDelete('SET NULL');
    // How this model derives from its base: quantized | finetune | adapter | merge.
    t.string('base_relation', 16);
    t.string('hub_sha', 64);
    t.boolean('gated').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['base_model_id']);
  });
  await knex.raw('create unique index models_hf_id_lower_unique on models (lower(hf_id))');
  await knex.raw(
    "alter table models add constraint models_base_relation_check check (base_relation in ('quantized','finetune','adapter','merge'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('models');
  await knex.schema.dropTable('rate_limit_counters');
  await knex.schema.dropTable('sessions');
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('users');
}
