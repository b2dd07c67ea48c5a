import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('model_reports', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('model_id').notNullable().references('models.id');
    t.string('title', 200).notNullable();
    t.string('summary', 500).notNullable().defaultTo('');
    t.string('content_format', 16).notNullable().defaultTo('gfm');
    t.text('content').notNullable();
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    // Attached runs, checked at write time (approved runs of the model's tree); shown only while still approved.
    t.specificType('benchmark_run_ids', 'uuid[]').notNullable().defaultTo('{}');
    t.specificType('eval_run_ids', 'uuid[]').notNullable().defaultTo('{}');
    t.specificType('image_ids', 'text[]').notNullable().defaultTo('{}');
    t.boolean('published').notNullable().defaultTo(false);
    t.timestamp('published_at', { useTz: true });
    // An admin's unpublishing: the author sees the reason and cannot publish again.
    t.string('unpublished_reason', 2000);
    t.timestamp('unpublished_at', { useTz: true });
    // The rendered HTML cache: valid for its renderer version while the statuses of the runs its
    // cards cite are those it was rendered with (render_stamp); cards of aggregate pages also age out.
    t.text('content_html');
    t.integer('renderer_version');
    t.text('render_stamp');
    t.specificType('cited_run_ids', 'uuid[]').notNullable().defaultTo('{}');
    t.boolean('has_live_cards').notNullable().defaultTo(false);
    t.timestamp('rendered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index model_reports_published_by_model on model_reports (model_id, published_at desc, id) where published');
  await knex.raw('create index model_reports_by_author on model_reports (user_id, updated_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('model_reports');
}
