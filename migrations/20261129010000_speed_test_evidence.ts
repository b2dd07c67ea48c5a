import type { Knex } from 'knex';
import { installRunDocument, runDocumentV3, runDocumentV4 } from '../src/runs/read-models/run-document.ts';

/**
 * Verified-run evidence on speed tests (DECISIONS.md "Real clients"): the prompt and output
 * as digest and sample (never whole), the engine's own timings, per-iteration samples and
 * their statistics, and the verdict on that evidence, which the run's document carries.
 * Runs stored before have no evidence: not verified, with no issues recorded (null).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.text('prompt_sha256');
    t.text('prompt_sample');
    t.text('output_sha256');
    t.text('output_sample');
    t.jsonb('engine_timings_raw');
    t.jsonb('samples');
    t.jsonb('sample_stats');
    t.boolean('verified_run').notNullable().defaultTo(false);
    t.jsonb('verification_issues');
  });
  await installRunDocument(knex, runDocumentV4);
}

export async function down(knex: Knex): Promise<void> {
  await installRunDocument(knex, runDocumentV3);
  await knex.schema.alterTable('speed_test_runs', (t) => {
    for (const column of [
      'prompt_sha256',
      'prompt_sample',
      'output_sha256',
      'output_sample',
      'engine_timings_raw',
      'samples',
      'sample_stats',
      'verified_run',
      'verification_issues',
    ])
      t.dropColumn(column);
  });
}
