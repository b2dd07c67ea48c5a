import type { Knex } from 'knex';
import { createSyncTriggers, dropSyncTriggers, syncFunctionSql, type ChangedRows } from './sync-triggers.ts';

/**
 * Exact numbers of approved runs per filter value, and per pair of filter values, in
 * speed_test_run_counts, so the leaderboard answers `total` for no, one or two filters
 * without counting a million rows. A pair's dimension name is the two names sorted and
 * joined by '+', its value the two values joined by '|' in the same order; the reader is
 * countTableTotal in src/runs/reads/speed-test-reads.ts.
 *
 * A layout says what is counted. Each layout below is installed by a migration and is
 * frozen: a migration must do on a fresh database what it did on the live one, so a
 * shipped layout is never edited. Count something new with a new layout (usually
 * `extendRunCountLayout(currentRunCountLayout, ...)`), a migration that installs it and
 * whose `down` installs the one before, and point `currentRunCountLayout` at it.
 */

/** A filter's dimension name and the SQL of its value over the run `r` (null: not counted). */
export type CountedDimension = readonly [name: string, sql: string];

/** Whether the pair of dimensions `a` + `b` (sorted by name) is counted. */
export type PairRule = (a: string, b: string) => boolean;

export interface RunCountLayout {
  readonly dimensions: readonly CountedDimension[];
  /** Undefined: no pairs. */
  readonly pairs?: PairRule;
}

/**
 * V1, installed by 20261121070000_run_counts: every filter value alone, no pairs.
 * Frozen: never edit after its migration has shipped; add a new layout instead.
 */
export const runCountLayoutV1: RunCountLayout = {
  dimensions: [
    ['hwClass', 'r.hw_class'],
    ['memTier', 'r.mem_tier::text'],
    ['engineName', 'r.engine_name'],
    ['quantization', 'r.quantization'],
    ['verified', 'r.user_verified::text'],
    ['paramSize', 'r.param_bucket::text'],
    ['os', 'r.os_family'],
    ['backend', 'r.backend'],
    ['isMoE', 'r.model_is_moe::text'],
    ['contextLen', 'r.ctx_bucket::text'],
    ['batchSize', 'least(r.batch_size, 8)::text'],
    ['modelId', 'r.model_id::text'],
  ],
};

/**
 * V2, installed by 20261121080000_run_count_pairs: V1's filters and every pair of them.
 * Frozen: never edit after its migration has shipped; add a new layout instead.
 */
export const runCountLayoutV2: RunCountLayout = { dimensions: runCountLayoutV1.dimensions, pairs: () => true };

/**
 * A layout that also counts `dimension`, alone and paired with each other dimension
 * `pairsWith` accepts; pairs of the base's dimensions stay as the base has them.
 */
export function extendRunCountLayout(
  base: RunCountLayout,
  dimension: CountedDimension,
  pairsWith: (other: string) => boolean,
): RunCountLayout {
  const [added] = dimension;
  return {
    dimensions: [...base.dimensions, dimension],
    pairs: (a, b) => {
      const other = a === added ? b : b === added ? a : null;
      return other === null ? (base.pairs?.(a, b) ?? false) : pairsWith(other);
    },
  };
}

/** Filters a hardware profile decides: a pair of one with the profile would count nothing new. */
const HARDWARE_LEVEL: ReadonlySet<string> = new Set(['hwClass', 'memTier', 'os']);

/**
 * V3, installed by 20261122050000_hardware_facets: V2 plus runs per hardware profile,
 * paired with each run-level filter, so a total for hardware filters plus one more is a
 * sum over the matching profiles. Not paired with models: as many pairs as runs.
 * Frozen: never edit after its migration has shipped; add a new layout instead.
 */
export const runCountLayoutV3: RunCountLayout = extendRunCountLayout(
  runCountLayoutV2,
  ['hardwareId', 'r.hardware_id::text'],
  (other) => !(HARDWARE_LEVEL.has(other) || other === 'modelId'),
);

/** The five main leaderboard filters: the ones paired with days. */
const DAY_PAIRS: ReadonlySet<string> = new Set(['hwClass', 'memTier', 'engineName', 'quantization', 'paramSize']);

/**
 * V4, installed by 20261122070000_run_count_days: V3 plus runs per day (UTC), alone and
 * paired with the five main filters, so `since` totals take the full days from the table
 * and count only the cut-off's own day.
 * Frozen: never edit after its migration has shipped; add a new layout instead.
 */
export const runCountLayoutV4: RunCountLayout = extendRunCountLayout(
  runCountLayoutV3,
  ['day', `to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD')`],
  (other) => DAY_PAIRS.has(other),
);

/**
 * V5, installed by 20261125030000_run_count_streams: V4 plus runs per aggregate active
 * sequences (batchSize x concurrency, 8 and more together), revision 3's batchSize bucket,
 * paired with every filter but the day, so the single-stream view the leaderboard page
 * shows by default (alone or with one more filter) has its total from the table.
 * Frozen: never edit after its migration has shipped; add a new layout instead.
 */
export const runCountLayoutV5: RunCountLayout = extendRunCountLayout(
  runCountLayoutV4,
  ['activeSequences', 'least(r.active_sequences, 8)::text'],
  (other) => other !== 'day',
);

/** The layout the latest migration installs (what a bulk load recounts in). */
export const currentRunCountLayout = runCountLayoutV5;

function dimensionValues({ dimensions, pairs }: RunCountLayout): string {
  const rows: string[] = [`('all', '')`];
  for (const [name, sql] of dimensions) rows.push(`('${name}', ${sql})`);
  if (!pairs) return `(values ${rows.join(', ')}) as d(dimension, value)`;
  const sorted = [...dimensions].sort(([a], [b]) => a.localeCompare(b));
  for (let i = 0; i < sorted.length; i += 1) {
    for (let j = i + 1; j < sorted.length; j += 1) {
      const [a, aSql] = sorted[i]!;
      const [b, bSql] = sorted[j]!;
      if (!pairs(a, b)) continue;
      // null when either value is null: such runs match no pair filter.
      rows.push(`('${a}+${b}', (${aSql}) || '|' || (${bSql}))`);
    }
  }
  return `(values ${rows.join(', ')}) as d(dimension, value)`;
}

/** Counts of the approved runs in `source` (signed), one row per counted value. */
function countRows(source: ChangedRows | 'speed_test_runs', sign: '' | '+' | '-', layout: RunCountLayout): string {
  return `insert into speed_test_run_counts (dimension, value, n)
    select d.dimension, d.value, ${sign}count(*) from ${source} r cross join lateral ${dimensionValues(layout)}
    where r.status = 'APPROVED' and d.value is not null
    group by d.dimension, d.value`;
}

/** The SQL a layout installs: the trigger function and the full recount. */
export function runCountSql(layout: RunCountLayout): { syncFunction: string; recount: string } {
  return {
    syncFunction: syncFunctionSql(
      'speed_test_run_counts',
      (rows, sign) => `
    ${countRows(rows, sign, layout)}
    on conflict (dimension, value) do update set n = speed_test_run_counts.n + excluded.n;`,
    ),
    recount: `
    ${countRows('speed_test_runs', '', layout)}`,
  };
}

/** The count table, its triggers, and the runs already stored counted in `layout`. */
export async function createRunCounts(knex: Knex, layout: RunCountLayout): Promise<void> {
  await knex.raw(`
    create table speed_test_run_counts (
      dimension text not null,
      value text not null,
      n bigint not null,
      primary key (dimension, value)
    )`);
  await knex.raw(runCountSql(layout).syncFunction);
  await createSyncTriggers(knex, 'speed_test_run_counts');
  await recountRuns(knex, layout);
}

export async function dropRunCounts(knex: Knex): Promise<void> {
  await dropSyncTriggers(knex, 'speed_test_run_counts');
  await knex.raw('drop table if exists speed_test_run_counts');
}

/** Switches the existing table to `layout`: its trigger function, and a full recount in it. */
export async function installRunCounts(knex: Knex, layout: RunCountLayout): Promise<void> {
  await knex.raw(runCountSql(layout).syncFunction);
  await recountRuns(knex, layout);
}

/**
 * Counts every approved run afresh. Also used after a bulk load that bypassed the
 * triggers (the benchmark's seed runs with session_replication_role = replica).
 */
export async function recountRuns(knex: Knex, layout: RunCountLayout = currentRunCountLayout): Promise<void> {
  await knex.raw('truncate speed_test_run_counts');
  await knex.raw(runCountSql(layout).recount);
}
