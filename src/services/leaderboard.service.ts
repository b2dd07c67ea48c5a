import type { Knex } from 'knex';
import type { Db } from '../db/knex.ts';
import type { Clock } from '../lib/clock.ts';
import { buckets, type RevisionProfile } from '../revisions.ts';
import type { LeaderboardQuery, LeaderboardSort } from '../schemas/leaderboard-query.schema.ts';
import { jsonArray, jsonObject, prependMember } from '../lib/json-text.ts';
import { countedRuns, runDocumentColumns, runJson, toRun, type RunDocumentRow, type SpeedTestRun } from './run-reads.ts';

export interface LeaderboardDeps {
  db: Db;
  profile: RevisionProfile;
  clock: Clock;
}

/** Column and direction of each sort; ties always go to the earliest run. */
const SORTS: Record<LeaderboardSort, { column: string; direction: 'asc' | 'desc' }> = {
  tokSOut: { column: 'tok_s_out', direction: 'desc' },
  tokSPrefill: { column: 'tok_s_prefill', direction: 'desc' },
  ttftMs: { column: 'ttft_ms', direction: 'asc' },
  tokPerWatt: { column: 'tok_per_watt', direction: 'desc' },
  tokPerDollar: { column: 'tok_per_dollar', direction: 'desc' },
};

function orderSql(sort: LeaderboardSort, alias: string): string {
  const { column, direction } = SORTS[sort];
  return `${alias}.${column} ${direction} nulls last, ${alias}.created_at asc, ${alias}.id asc`;
}

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A query with its hardware filters resolved to the matching hardware profiles, when
 * `hardwareName` is given (see the hardware-facets migration): a substring match over a
 * few hundred profiles instead of a million runs.
 */
interface ResolvedQuery {
  query: LeaderboardQuery;
  hardwareIds?: string[];
}

/** Filters that are facts of the hardware profile; the others are facts of the run. */
const HARDWARE_FILTERS = ['hwClass', 'memTier', 'os', 'hardwareName'] as const;

/** memTier T holds memory in (previous tier, T]; the first tier starts at 0. */
function memTierRange(tier: number): [above: number, upTo: number] {
  const at = buckets.memTier.indexOf(tier as (typeof buckets.memTier)[number]);
  return [at > 0 ? buckets.memTier[at - 1]! : 0, tier];
}

async function resolveQuery(deps: LeaderboardDeps, query: LeaderboardQuery): Promise<ResolvedQuery> {
  if (!query.hardwareName) return { query };
  const hardwareIds: string[] = await deps.db('hardware_profiles')
    .modify((q) => {
      q.whereRaw('hardware_search like ?', [likePattern(query.hardwareName!)]);
      if (query.hwClass) q.where('hw_class', query.hwClass);
      if (query.memTier !== undefined) {
        const [above, upTo] = memTierRange(query.memTier);
        q.where('memory_gb', '>', above).where('memory_gb', '<=', upTo);
      }
      if (query.os) q.where('os_family', query.os);
    })
    .pluck('id');
  return { query, hardwareIds };
}

/** Every filter reads columns of the run row itself (see the leaderboard-columns migration). */
function applyFilters(q: Knex.QueryBuilder, { query, hardwareIds }: ResolvedQuery, deps: LeaderboardDeps): void {
  q.where('r.status', 'APPROVED');
  if (query.hfId) q.whereRaw('r.model_id = (select id from models where lower(hf_id) = lower(?))', [query.hfId]);
  if (query.hwClass) q.where('r.hw_class', query.hwClass);
  if (query.memTier !== undefined) q.where('r.mem_tier', query.memTier);
  if (query.engineName) q.where('r.engine_name', query.engineName);
  if (query.quantization) q.where('r.quantization', query.quantization);
  if (query.verified !== undefined) q.where('r.user_verified', query.verified);
  if (query.since) q.where('r.created_at', '>=', new Date(deps.clock.now().getTime() - buckets.since[query.since]));
  if (hardwareIds) q.whereRaw('r.hardware_id = any(?::uuid[])', [hardwareIds]);
  if (query.paramSize !== undefined) q.where('r.param_bucket', query.paramSize);
  if (query.os) q.where('r.os_family', query.os);
  if (query.backend) q.where('r.backend', query.backend);
  if (query.modelFamily) q.whereRaw('r.model_family like ?', [likePattern(query.modelFamily)]);
  if (query.isMoE !== undefined) q.where('r.model_is_moe', query.isMoE);
  if (query.batchSize !== undefined) {
    if (query.batchSize >= buckets.batchSizeOpenEnded) q.where('r.batch_size', '>=', buckets.batchSizeOpenEnded);
    else q.where('r.batch_size', query.batchSize);
  }
  if (query.contextLen !== undefined) q.where('r.ctx_bucket', query.contextLen);
  if (query.plausible) q.whereNot('r.plausibility', 'suspect');
}

/**
 * The ranked candidate rows: the filtered runs, or with `bestPer=hardware` each hardware
 * profile's best run among them. Selects what the ordering needs.
 */
function rankedRuns(deps: LeaderboardDeps, resolved: ResolvedQuery) {
  const { query } = resolved;
  const { column } = SORTS[query.sort];
  const filtered = deps.db('speed_test_runs as r').modify((q) => applyFilters(q, resolved, deps));
  if (query.bestPer !== 'hardware') return filtered.select('r.id', `r.${column}`, 'r.created_at');
  const best = filtered
    .clone()
    .select('r.id', `r.${column}`, 'r.created_at', deps.db.raw(`row_number() over (partition by r.hardware_id order by ${orderSql(query.sort, 'r')}) as place`));
  return deps.db.from(best.as('b')).where('b.place', 1).select('b.id', `b.${column}`, 'b.created_at');
}

/** Filters whose totals the count table keeps, alone and in pairs (see the run-count migrations). */
const COUNTED_FILTERS = ['hfId', 'hwClass', 'memTier', 'engineName', 'quantization', 'verified', 'paramSize', 'os', 'backend', 'isMoE', 'contextLen', 'batchSize'] as const;
const UNCOUNTED_FILTERS = ['since', 'modelFamily', 'plausible', 'bestPer'] as const;
type CountedFilter = (typeof COUNTED_FILTERS)[number];

/** The count table's value for a filter (a model by its row id; batch sizes from 8 up share one). */
async function countedValue(deps: LeaderboardDeps, query: LeaderboardQuery, name: CountedFilter): Promise<[string, string] | null> {
  if (name !== 'hfId') return [name, String(query[name])];
  const model = await deps.db('models').whereRaw('lower(hf_id) = lower(?)', [query.hfId!]).first('id');
  return model ? ['modelId', model.id] : null;
}

/** The count table's key for a set of (dimension, value) facts: names sorted, joined by '+'; values by '|'. */
function countKey(facts: [string, string][]): { dimension: string; value: string } {
  const sorted = [...facts].sort(([a], [b]) => a.localeCompare(b));
  return { dimension: sorted.map(([name]) => name).join('+') || 'all', value: sorted.map(([, value]) => value).join('|') };
}

/**
 * The exact number of matching runs, read from speed_test_run_counts (kept by triggers in
 * every writing transaction) whenever the filters allow: none, one or two counted
 * filters; or hardware filters that resolved to profiles plus at most one run filter,
 * summed over the profiles. Anything else is counted.
 */
async function exactTotal(deps: LeaderboardDeps, resolved: ResolvedQuery): Promise<number> {
  const { query, hardwareIds } = resolved;
  const given = COUNTED_FILTERS.filter((name) => query[name] !== undefined);
  if (UNCOUNTED_FILTERS.every((name) => query[name] === undefined)) {
    if (!hardwareIds && given.length <= 2) {
      const facts: [string, string][] = [];
      for (const name of given) {
        const fact = await countedValue(deps, query, name);
        if (!fact) return 0;
        facts.push(fact);
      }
      const { dimension, value } = countKey(facts);
      return countedRuns(deps.db, dimension, value);
    }
    const runFilters = given.filter((name) => !(HARDWARE_FILTERS as readonly string[]).includes(name));
    // Runs of a profile and a model are not paired in the count table (as many pairs as runs).
    if (hardwareIds && runFilters.length <= 1 && runFilters[0] !== 'hfId') {
      if (hardwareIds.length === 0) return 0;
      const other = runFilters.length ? await countedValue(deps, query, runFilters[0]!) : null;
      const keys = hardwareIds.map((id) => countKey(other ? [['hardwareId', id], other] : [['hardwareId', id]]));
      const [{ total }] = await deps.db('speed_test_run_counts')
        .where('dimension', keys[0]!.dimension)
        .whereIn('value', keys.map((key) => key.value))
        .select(deps.db.raw('coalesce(sum(n), 0)::int as total'));
      return total;
    }
  }
  const [{ total }] = await deps.db.from(rankedRuns(deps, resolved).as('c')).count<{ total: number }[]>('* as total');
  return total;
}

export interface LeaderboardPage {
  rows: (RunDocumentRow & { rank: number })[];
  total: number;
  limit: number;
  offset: number;
}

/** Ranked pages and exports read the documents of the ranked ids `k`, in rank order. */
function rankedDocuments(deps: LeaderboardDeps, ranked: Knex.QueryBuilder, query: LeaderboardQuery, viewerId: string | null) {
  return deps.db
    .from(ranked.as('k'))
    .join('speed_test_run_documents as d', 'd.run_id', 'k.id')
    .select(runDocumentColumns(deps.db, viewerId, 'k.id'))
    .orderByRaw(orderSql(query.sort, 'k'));
}

/**
 * One page of the ranking; `withTotal: false` skips the exact count (charts need none).
 * `viewerId` fills each row's `myEmoji`.
 */
export async function leaderboardPage(
  deps: LeaderboardDeps,
  query: LeaderboardQuery,
  { withTotal = true, viewerId = null }: { withTotal?: boolean; viewerId?: string | null } = {},
): Promise<LeaderboardPage> {
  const resolved = await resolveQuery(deps, query);
  const pageIds = deps.db
    .from(rankedRuns(deps, resolved).as('p'))
    .select('p.*')
    .orderByRaw(orderSql(query.sort, 'p'))
    .limit(query.limit)
    .offset(query.offset);
  const [rows, total] = await Promise.all([
    rankedDocuments(deps, pageIds, query, viewerId) as Promise<RunDocumentRow[]>,
    withTotal ? exactTotal(deps, resolved) : Promise.resolve(Number.NaN),
  ]);
  return { rows: rows.map((row, index) => ({ rank: query.offset + index + 1, ...row })), total, limit: query.limit, offset: query.offset };
}

/** The page as the API answers it, assembled from the stored documents. */
export function leaderboardJson(profile: RevisionProfile, page: LeaderboardPage): string {
  const rows = page.rows.map((row) => prependMember('rank', row.rank, runJson(profile, row)));
  return jsonObject({ rows: jsonArray(rows), total: page.total, limit: page.limit, offset: page.offset });
}

/** The page's runs as objects, for the pages. */
export function leaderboardRuns(profile: RevisionProfile, page: LeaderboardPage): (SpeedTestRun & { rank: number })[] {
  return page.rows.map((row) => ({ rank: row.rank, ...toRun(profile, row) }));
}

/** Every matching run in rank order, read through a cursor (constant memory) for exports. */
export async function* leaderboardRows(deps: LeaderboardDeps, query: LeaderboardQuery): AsyncGenerator<SpeedTestRun & { rank: number }> {
  const stream = rankedDocuments(deps, rankedRuns(deps, await resolveQuery(deps, query)), query, null).stream({ highWaterMark: 200 });
  let rank = 0;
  try {
    for await (const row of stream) {
      rank += 1;
      yield { rank, ...toRun(deps.profile, row as RunDocumentRow) };
    }
  } finally {
    stream.destroy();
  }
}
