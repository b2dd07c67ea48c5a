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

/** Every filter reads columns of the run row itself (see the leaderboard-columns migration). */
function applyFilters(q: Knex.QueryBuilder, query: LeaderboardQuery, deps: LeaderboardDeps): void {
  q.where('r.status', 'APPROVED');
  if (query.hfId) q.whereRaw('r.model_id = (select id from models where lower(hf_id) = lower(?))', [query.hfId]);
  if (query.hwClass) q.where('r.hw_class', query.hwClass);
  if (query.memTier !== undefined) q.where('r.mem_tier', query.memTier);
  if (query.engineName) q.where('r.engine_name', query.engineName);
  if (query.quantization) q.where('r.quantization', query.quantization);
  if (query.verified !== undefined) q.where('r.user_verified', query.verified);
  if (query.since) q.where('r.created_at', '>=', new Date(deps.clock.now().getTime() - buckets.since[query.since]));
  if (query.hardwareName) q.whereRaw('r.hardware_search like ?', [likePattern(query.hardwareName)]);
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
function rankedRuns(deps: LeaderboardDeps, query: LeaderboardQuery) {
  const { column } = SORTS[query.sort];
  const filtered = deps.db('speed_test_runs as r').modify((q) => applyFilters(q, query, deps));
  if (query.bestPer !== 'hardware') return filtered.select('r.id', `r.${column}`, 'r.created_at');
  const best = filtered
    .clone()
    .select('r.id', `r.${column}`, 'r.created_at', deps.db.raw(`row_number() over (partition by r.hardware_id order by ${orderSql(query.sort, 'r')}) as place`));
  return deps.db.from(best.as('b')).where('b.place', 1).select('b.id', `b.${column}`, 'b.created_at');
}

/** Filters whose totals the count table keeps, alone and in pairs (see the run-count migrations). */
const COUNTED_FILTERS = ['hfId', 'hwClass', 'memTier', 'engineName', 'quantization', 'verified', 'paramSize', 'os', 'backend', 'isMoE', 'contextLen', 'batchSize'] as const;
const OTHER_FILTERS = ['since', 'hardwareName', 'modelFamily', 'plausible', 'bestPer'] as const;

/**
 * The exact number of matching runs. With no filter, or one or two kept filters, it is
 * read from speed_test_run_counts (kept by triggers in every writing transaction);
 * otherwise counted.
 */
async function exactTotal(deps: LeaderboardDeps, query: LeaderboardQuery): Promise<number> {
  const given = COUNTED_FILTERS.filter((name) => query[name] !== undefined);
  if (given.length <= 2 && OTHER_FILTERS.every((name) => query[name] === undefined)) {
    const facts: [string, string][] = [];
    for (const name of given) {
      if (name === 'hfId') {
        const model = await deps.db('models').whereRaw('lower(hf_id) = lower(?)', [query.hfId!]).first('id');
        if (!model) return 0;
        facts.push(['modelId', model.id]);
      } else {
        facts.push([name, String(query[name])]);
      }
    }
    facts.sort(([a], [b]) => a.localeCompare(b));
    if (facts.length === 0) return countedRuns(deps.db, 'all', '');
    return countedRuns(deps.db, facts.map(([name]) => name).join('+'), facts.map(([, value]) => value).join('|'));
  }
  const [{ total }] = await deps.db.from(rankedRuns(deps, query).as('c')).count<{ total: number }[]>('* as total');
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
  const pageIds = deps.db
    .from(rankedRuns(deps, query).as('p'))
    .select('p.*')
    .orderByRaw(orderSql(query.sort, 'p'))
    .limit(query.limit)
    .offset(query.offset);
  const [rows, total] = await Promise.all([
    rankedDocuments(deps, pageIds, query, viewerId) as Promise<RunDocumentRow[]>,
    withTotal ? exactTotal(deps, query) : Promise.resolve(Number.NaN),
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
  const stream = rankedDocuments(deps, rankedRuns(deps, query), query, null).stream({ highWaterMark: 200 });
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
