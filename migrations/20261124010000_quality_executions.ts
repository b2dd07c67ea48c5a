import type { Knex } from 'knex';

/**
 * Server-side executions of CUSTOM suites (issue 14): a job per execution, claimed by the
 * app's worker loops with `FOR UPDATE SKIP LOCKED`, and one row per scored item so a job
 * taken over from a stopped worker resumes after the items already scored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('quality_executions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('suite_id').notNullable().references('quality_suites.id');
    t.string('status', 16).notNullable().defaultTo('QUEUED');
    // What was asked, without the target's API key (never stored): baseUrl, model, hfId,
    // taskKeys, autoSubmit, hardware, quantization, modelRevision, notes.
    t.jsonb('request').notNullable();
    // The worker pool that holds the target's API key in memory; only it may run the job.
    t.string('key_holder', 64);
    t.integer('total').notNullable();
    t.integer('done').notNullable().defaultTo(0);
    t.integer('failed_items').notNullable().defaultTo(0);
    t.text('error');
    t.uuid('run_id').references('quality_runs.id').onDelete('SET NULL');
    // Why an auto-submit did not happen (the window was used meanwhile, the hub was down...).
    t.text('submit_error');
    t.string('worker_id', 64);
    t.timestamp('heartbeat_at', { useTz: true });
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    t.timestamp('started_at', { useTz: true });
    t.timestamp('deadline_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['user_id', 'created_at']);
  });
  await knex.raw(
    "alter table quality_executions add constraint quality_executions_status_check check (status in ('QUEUED','RUNNING','SUCCEEDED','FAILED','CANCELLED'))",
  );
  // The workers' queue: jobs waiting or running, oldest first.
  await knex.raw("create index quality_executions_queue on quality_executions (created_at) where status in ('QUEUED','RUNNING')");

  await knex.schema.createTable('quality_execution_items', (t) => {
    t.uuid('execution_id').notNullable().references('quality_executions.id').onDelete('CASCADE');
    // Position in the execution's plan (tasks in suite order, items in dataset order).
    t.integer('seq').notNullable();
    t.string('task_key', 64).notNullable();
    t.integer('item_index').notNullable();
    t.string('prompt_hash', 128).notNullable();
    t.text('prompt').notNullable();
    t.text('response');
    t.text('extracted');
    t.double('score').notNullable();
    t.double('judge_score');
    t.text('judge_rationale');
    // The judge's answer could not be read as a score.
    t.boolean('judge_unparsed').notNullable().defaultTo(false);
    t.double('latency_ms');
    t.text('error');
    t.primary(['execution_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('quality_execution_items');
  await knex.schema.dropTable('quality_executions');
}
