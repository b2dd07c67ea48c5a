import type { Knex } from 'knex';

/**
 * The track record of predictions (issue 38; DECISIONS.md "Prediction"): each prediction asked
 * (one row per setup and day: the first answer of that day), and, when a later approved
 * single-stream run has a setup that was predicted before, what was predicted against what was
 * measured. Predictions are never runs: nothing here reaches the leaderboard.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('speed_test_predictions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('setup_key').notNullable();
    t.date('asked_on').notNullable();
    t.uuid('model_id').notNullable().references('models.id').onDelete('CASCADE');
    t.string('quantization', 64).notNullable();
    t.string('device', 256).notNullable();
    t.smallint('cards').notNullable();
    t.string('engine', 64).notNullable();
    t.integer('context_depth').notNullable();
    t.double('estimate').notNullable();
    t.double('low').notNullable();
    t.double('high').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['setup_key', 'asked_on']);
    t.index(['setup_key', 'created_at']);
  });
  await knex.schema.createTable('speed_test_prediction_scores', (t) => {
    t.uuid('run_id').primary().references('speed_test_runs.id').onDelete('CASCADE');
    t.uuid('prediction_id').notNullable().references('speed_test_predictions.id').onDelete('CASCADE');
    t.double('estimate').notNullable();
    t.double('low').notNullable();
    t.double('high').notNullable();
    t.double('measured').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // The track record reads the newest scores.
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('speed_test_prediction_scores');
  await knex.schema.dropTable('speed_test_predictions');
}
