import type { Knex } from 'knex';
import { installRunDocument, runDocumentV1, runDocumentV2 } from '../src/runs/read-models/run-document.ts';

/**
 * Stated vs defaulted (DECISIONS.md "Speed-test ranking"): each run keeps the list of
 * fields its submitter did not give, which are stored with the spec's defaults. Runs stored
 * before keep null: what their submitters stated was not recorded, and a value equal to
 * the default may well have been typed, so "unknown" is the only honest answer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.jsonb('defaulted_fields');
  });
  await installRunDocument(knex, runDocumentV2);
}

export async function down(knex: Knex): Promise<void> {
  await installRunDocument(knex, runDocumentV1);
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.dropColumn('defaulted_fields');
  });
}
