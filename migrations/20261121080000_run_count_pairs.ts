import type { Knex } from 'knex';

/**
 * The run-count table also keeps every pair of filter values (e.g. hwClass + memTier,
 * engineName + quantization), so leaderboard totals for two filters are exact without
 * counting either. Dimension names of a pair are the two names sorted and joined by '+',
 * values joined by '|' in the same order (see exactTotal in leaderboard.service.ts).
 */
export const COUNTED_DIMENSIONS: readonly [name: string, sql: string][] = [
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
];

/** Which pairs of dimensions are kept (all of them here; later migrations leave some out). */
export type PairRule = (a: string, b: string) => boolean;

export interface RunCountLayout {
  dimensions: readonly [name: string, sql: string][];
  /** Undefined: no pairs. */
  pairs?: PairRule;
}

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

function apply(rows: 'new_rows' | 'old_rows', sign: '+' | '-', layout: RunCountLayout): string {
  return `
    insert into speed_test_run_counts (dimension, value, n)
    select d.dimension, d.value, ${sign}count(*) from ${rows} r cross join lateral ${dimensionValues(layout)}
    where r.status = 'APPROVED' and d.value is not null
    group by d.dimension, d.value
    on conflict (dimension, value) do update set n = speed_test_run_counts.n + excluded.n;`;
}

/** The trigger function for a layout, and a full recount in it. */
export async function installRunCounts(knex: Knex, layout: RunCountLayout): Promise<void> {
  await knex.raw(`
    create or replace function speed_test_run_counts_sync() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then ${apply('old_rows', '-', layout)}
      end if;
      if tg_op in ('INSERT', 'UPDATE') then ${apply('new_rows', '+', layout)}
      end if;
      return null;
    end $$`);
  await recountRuns(knex, layout);
}

/**
 * Counts every approved run afresh. Also used after a bulk load that bypassed the
 * triggers (the benchmark's seed runs with session_replication_role = replica).
 */
export async function recountRuns(knex: Knex, layout: RunCountLayout): Promise<void> {
  await knex.raw('truncate speed_test_run_counts');
  await knex.raw(`
    insert into speed_test_run_counts (dimension, value, n)
    select d.dimension, d.value, count(*) from speed_test_runs r cross join lateral ${dimensionValues(layout)}
    where r.status = 'APPROVED' and d.value is not null
    group by d.dimension, d.value`);
}

export async function up(knex: Knex): Promise<void> {
  await installRunCounts(knex, { dimensions: COUNTED_DIMENSIONS, pairs: () => true });
}

export async function down(knex: Knex): Promise<void> {
  await installRunCounts(knex, { dimensions: COUNTED_DIMENSIONS });
}
