import type { Knex } from 'knex';
import { createRunDocuments, dropRunDocuments, runDocumentV1 } from '../src/runs/read-models/run-document.ts';

/**
 * Each speed-test run's JSON, as the API returns it (revision 3 form), kept in its own
 * table by triggers so a page of runs is read as 50 ready strings (see run-document.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await createRunDocuments(knex, runDocumentV1);
}

export async function down(knex: Knex): Promise<void> {
  await dropRunDocuments(knex);
}
