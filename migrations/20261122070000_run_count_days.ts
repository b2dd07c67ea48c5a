import type { Knex } from 'knex';
import { installRunCounts, recountRuns as recountWith, type RunCountLayout } from './20261121080000_run_count_pairs.ts';
import { RUN_COUNT_LAYOUT as HARDWARE_LAYOUT } from './20261122050000_hardware_facets.ts';

/**
 * The count table also counts runs per day (UTC), alone and paired with the five main
 * filters, so `since` totals are exact without counting a month of runs: the full days
 * after the cut-off come from the table, and only the cut-off's own day is counted.
 */
const DAY_PAIRS = new Set(['hwClass', 'memTier', 'engineName', 'quantization', 'paramSize']);

export const RUN_COUNT_LAYOUT: RunCountLayout = {
  dimensions: [...HARDWARE_LAYOUT.dimensions, ['day', `to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD')`]],
  pairs: (a, b) => {
    const other = a === 'day' ? b : b === 'day' ? a : null;
    return other === null ? HARDWARE_LAYOUT.pairs!(a, b) : DAY_PAIRS.has(other);
  },
};

/** Counts every approved run afresh in the current layout (after a bulk load that skipped the triggers). */
export const recountRuns = (knex: Knex) => recountWith(knex, RUN_COUNT_LAYOUT);

export async function up(knex: Knex): Promise<void> {
  await installRunCounts(knex, RUN_COUNT_LAYOUT);
}

export async function down(knex: Knex): Promise<void> {
  await installRunCounts(knex, HARDWARE_LAYOUT);
}
