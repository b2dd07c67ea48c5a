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

function dimensionValues(withPairs: boolean): string {
  const rows: string[] = [`('all', '')`];
  for (const [name, sql] of COUNTED_DIMENSIONS) rows.push(`('${name}', ${sql})`);
  if (!withPairs) return `(values ${rows.join(', ')}) as d(dimension, value)`;
  const sorted = [...COUNTED_DIMENSIONS].sort(([a], [b]) => a.localeCompare(b));
  for (let i = 0; i < sorted.length; i += 1) {
    for (let j = i + 1; j < sorted.length; j += 1) {
      const [a, aSql] = sorted[i]!;
      const [b, bSql] = sorted[j]!;
      // null when either value is null: such runs match no pair filter.
      rows.push(`('${a}+${b}', (${aSql}) || '|' || (${bSql}))`);
    }
  }
  return `(values ${rows.join(', ')}) as d(dimension, value)`;
}

function apply(rows: 'new_rows' | 'old_rows', sign: '+' | '-', withPairs: boolean): string {
  return `
    insert into speed_test_run_counts (dimension, value, n)
    select d.dimension, d.value, ${sign}count(*) from ${rows} r cross join lateral ${dimensionValues(withPairs)}
    where r.status = 'APPROVED' and d.value is not null
    group by d.dimension, d.value
    on conflict (dimension, value) do update set n = speed_test_run_counts.n + excluded.n;`;
}

/** The trigger function and a full recount, with or without the pair rows. */
async function install(knex: Knex, withPairs: boolean): Promise<void> {
  await knex.raw(`
    create or replace function speed_test_run_counts_sync() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then ${apply('old_rows', '-', withPairs)}
      end if;
      if tg_op in ('INSERT', 'UPDATE') then ${apply('new_rows', '+', withPairs)}
      end if;
      return null;
    end $$`);
  await recountRuns(knex, withPairs);
}

/**
 * Counts every approved run afresh. Also used after a bulk load that bypassed the
 * triggers (the benchmark's seed runs with session_replication_role = replica).
 */
export async function recountRuns(knex: Knex, withPairs = true): Promise<void> {
  await knex.raw('truncate speed_test_run_counts');
  await knex.raw(`
    insert into speed_test_run_counts (dimension, value, n)
    select d.dimension, d.value, count(*) from speed_test_runs r cross join lateral ${dimensionValues(withPairs)}
    where r.status = 'APPROVED' and d.value is not null
    group by d.dimension, d.value`);
}

export async function up(knex: Knex): Promise<void> {
  await install(knex, true);
}

export async function down(knex: Knex): Promise<void> {
  await install(knex, false);
}
