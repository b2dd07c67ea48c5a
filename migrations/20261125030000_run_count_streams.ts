import type { Knex } from 'knex';
import { installRunCounts, runCountLayoutV4, runCountLayoutV5 } from '../src/runs/read-models/run-counts.ts';

/**
 * The count table also counts runs per aggregate active sequences (revision 3's batchSize
 * bucket, DECISIONS.md "Buckets"), alone and paired with the other filters: the leaderboard
 * page shows single-stream runs by default, and its total must not count a million runs on
 * the SQL path.
 */
export async function up(knex: Knex): Promise<void> {
  await installRunCounts(knex, runCountLayoutV5);
}

export async function down(knex: Knex): Promise<void> {
  await installRunCounts(knex, runCountLayoutV4);
}
