import type { Knex } from 'knex';
import { installRunDocument, runDocumentV2, runDocumentV3 } from '../src/runs/read-models/run-document.ts';

/**
 * One stream rule everywhere (issue 36): each run's answer carries `streams`, its
 * aggregate active sequences (the column the revision-3 batchSize filter buckets on), so a
 * client of the leaderboard sees which rows are throughput runs without working it out.
 */
export async function up(knex: Knex): Promise<void> {
  await installRunDocument(knex, runDocumentV3);
}

export async function down(knex: Knex): Promise<void> {
  await installRunDocument(knex, runDocumentV2);
}
