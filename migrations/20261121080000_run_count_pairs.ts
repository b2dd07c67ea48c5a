import type { Knex } from 'knex';
import { installRunCounts, runCountLayoutV1, runCountLayoutV2 } from '../src/runs/read-models/run-counts.ts';

/**
 * The run-count table also keeps every pair of filter values (e.g. hwClass + memTier,
 * engineName + quantization), so leaderboard totals for two filters are exact without
 * counting either. Dimension names of a pair are the two names sorted and joined by '+',
 * values joined by '|' in the same order (see countTableTotal in src/runs/reads/speed-test-reads.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await installRunCounts(knex, runCountLayoutV2);
}

export async function down(knex: Knex): Promise<void> {
  await installRunCounts(knex, runCountLayoutV1);
}
