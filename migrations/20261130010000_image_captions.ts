import type { Knex } from 'knex';

/**
 * A report image's caption (the public clients send `caption` or `altText` with the upload):
 * kept with the image and used as its alternative text where a report shows it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('images', (t) => {
    t.text('caption');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('images', (t) => {
    t.dropColumn('caption');
  });
}
