import type { Knex } from 'knex';

/**
 * Marketplace listings (revision 3): a seller's hardware for sale, its photos (rows of
 * `images`, in order) and its proof runs (the seller's own speed-test runs). Only ACTIVE
 * listings are public. `updated_at` is the feed's keyset with `id`; it keeps the database's
 * microseconds, and the feed's cursor carries that exact value.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('marketplace_listings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('seller_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('status', 16).notNullable().defaultTo('DRAFT');
    t.string('title', 200).notNullable();
    t.text('description').notNullable().defaultTo('');
    t.string('condition', 16).notNullable();
    t.decimal('price', 14, 2).notNullable();
    t.string('currency', 3).notNullable();
    t.decimal('price_usd', 14, 2).notNullable();
    t.string('hw_class', 16).notNullable();
    t.string('hardware_name', 200).notNullable();
    t.text('hardware_details').notNullable().defaultTo('');
    t.string('listing_url', 2048);
    t.string('contact_url', 2048).notNullable();
    t.timestamp('published_at', { useTz: true });
    t.timestamp('sold_at', { useTz: true });
    t.timestamp('removed_at', { useTz: true });
    t.uuid('removed_by').references('users.id').onDelete('SET NULL');
    t.string('removed_reason', 500);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
  });
  await knex.raw(
    `alter table marketplace_listings add constraint marketplace_listings_status_known check (status in ('DRAFT', 'ACTIVE', 'SOLD', 'REMOVED'))`,
  );
  await knex.raw(
    `alter table marketplace_listings add constraint marketplace_listings_condition_known check (condition in ('NEW', 'LIKE_NEW', 'USED', 'FOR_PARTS'))`,
  );
  // The feed: active listings in (updated_at, id) order.
  await knex.raw(`create index marketplace_listings_feed on marketplace_listings (updated_at, id) where status = 'ACTIVE'`);
  await knex.raw('create index marketplace_listings_seller on marketplace_listings (seller_id, updated_at desc)');

  await knex.schema.createTable('marketplace_listing_images', (t) => {
    t.uuid('listing_id').notNullable().references('marketplace_listings.id').onDelete('CASCADE');
    t.uuid('image_id').notNullable().unique().references('images.id').onDelete('CASCADE');
    t.integer('sort_order').notNullable();
    t.primary(['listing_id', 'image_id']);
  });

  await knex.schema.createTable('marketplace_listing_runs', (t) => {
    t.uuid('listing_id').notNullable().references('marketplace_listings.id').onDelete('CASCADE');
    t.uuid('run_id').notNullable().references('speed_test_runs.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.primary(['listing_id', 'run_id']);
  });
  await knex.raw('create index marketplace_listing_runs_run on marketplace_listing_runs (run_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('marketplace_listing_runs');
  await knex.schema.dropTable('marketplace_listing_images');
  await knex.schema.dropTable('marketplace_listings');
}
