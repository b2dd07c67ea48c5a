import type { Knex } from 'knex';
import { installRunCounts, runCountLayoutV3, runCountLayoutV4 } from '../src/runs/read-models/run-counts.ts';

/**
 * The count table also counts runs per day (UTC), alone and paired with the five main
 * filters, so `since` totals are exact without counting a month of runs: the full days
 * after the cut-off come from the table, and only the cut-off's own day is counted.
 */
export async function up(knex: Knex): Promise<void> {
  await installRunCounts(knex, runCountLayoutV4);
}

export async function down(knex: Knex): Promise<void> {
  await installRunCounts(knex, runCountLayoutV3);
}
