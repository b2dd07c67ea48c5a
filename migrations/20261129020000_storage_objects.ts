import type { Knex } from 'knex';

/**
 * Owned storage for quality datasets and artifacts (DECISIONS.md "Real clients": the
 * `storage/upload-url`, `complete` and `download-url` flow): objects live in Postgres like
 * images (`bytea`), at most 64 MiB each, 1 GiB and 200 objects per user. A row is made when
 * an upload URL is handed out, gets its bytes on the signed PUT and is finished by `complete`;
 * rows never finished are swept after 24 hours.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('storage_objects', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('owner_user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('kind', 16).notNullable();
    t.string('filename', 256).notNullable();
    t.string('content_type', 128).notNullable();
    t.string('format', 32).notNullable();
    t.bigInteger('byte_size').notNullable();
    t.string('sha256', 64).notNullable();
    t.integer('item_count');
    t.binary('bytes');
    t.timestamp('uploaded_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table storage_objects add constraint storage_objects_kind_known check (kind in ('dataset', 'artifact'))`);
  await knex.raw('create index storage_objects_owner on storage_objects (owner_user_id)');
  await knex.raw('create index storage_objects_unfinished on storage_objects (created_at) where completed_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('storage_objects');
}
