import type { Knex } from 'knex';

/**
 * Uploaded images (marketplace listings, model reports), re-encoded by the image pipeline.
 * The bytes live in Postgres behind the images service, so an object store can replace this
 * table without touching its callers. `expires_at` is set when what uses the image goes away
 * (a removed listing): from then on it is not served, and the sweep deletes the row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('images', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('owner_user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('purpose', 16).notNullable();
    t.string('content_type', 16).notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    t.binary('bytes').notNullable();
    t.string('etag', 80).notNullable();
    t.integer('thumb_width').notNullable();
    t.integer('thumb_height').notNullable();
    t.binary('thumb_bytes').notNullable();
    t.string('thumb_etag', 80).notNullable();
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table images add constraint images_purpose_known check (purpose in ('listing', 'report'))`);
  await knex.raw(
    `alter table images add constraint images_content_type_known check (content_type in ('image/png', 'image/jpeg', 'image/webp'))`,
  );
  await knex.raw('create index images_owner on images (owner_user_id, created_at)');
  await knex.raw('create index images_expiring on images (expires_at) where expires_at is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('images');
}
