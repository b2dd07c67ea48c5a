import type { Knex } from 'knex';
import { queryPrepared } from '../../db/knex.ts';
import { JsonText, jsonArray, jsonObject } from '../../lib/json-text.ts';
import { everyTokenSql, hardwareNameTokens } from '../../lib/search-tokens.ts';
import { buckets } from '../../constants.ts';
import { type RevisionProfile } from '../../revisions.ts';
import type { LeaderboardQuery, LeaderboardSort } from './leaderboard-query.schema.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { IndexFilter, RunIndex } from '../read-index/run-index.ts';
import { noReadIndex } from '../read-index/read-index.ts';
import {
  answersDocumentAsStored,
  createSpeedTestReads,
  MY_EMOJI_NULL_TAIL,
  rankedRowsJson,
  speedTestRunForRevision,
  SPEED_TEST_REACTION_KIND,
  toSpeedTestRun,
  type CountFact,
  type SpeedTestDocumentRow,
  type SpeedTestReads,
  type SpeedTestRun,
} from './speed-test-reads.ts';

/** What the ranking's helpers below share: the service's deps and the run reads built on them. */
type LeaderboardDeps = Pick<ServiceDeps, 'db' | 'profile' | 'clock' | 'readIndex'> & { reads: SpeedTestReads };

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


/**
 * A query with its hardware filters resolved to the matching hardware profiles, when
 * `hardwareName` is given (see the hardware-facets migration): a match of its words over a
 * few hundred profiles instead of a million runs.
 */
interface ResolvedQuery {
  query: LeaderboardQuery;
  hardwareIds?: string[];
  /** Only runs created before this (counting the part of a `since` window the table does not hold). */
  createdBefore?: Date;
}

/** Filters that are facts of the hardware profile; the others are facts of the run. */
const HARDWARE_FILTERS = ['hwClass', 'memTier', 'os', 'hardwareName'] as const;

/** memTier T holds memory in (previous tier, T]; the first tier starts at 0. */
function memTierRange(tier: number): [above: number, upTo: number] {
  const at = buckets.memTier.indexOf(tier as (typeof buckets.memTier)[number]);
  return [at > 0 ? buckets.memTier[at - 1]! : 0, tier];
}

/**
 * What a `batchSize` filter matches (DECISIONS.md "Buckets"), for the SQL filter, the read
 * index and the count tables alike: revision 3 counts aggregate active sequences (batchSize
 * x concurrency), revisions 1 and 2 batchSize alone; N exactly, or N and more for the
 * open-ended bucket.
 */
function batchBucket(profile: RevisionProfile, batchSize: number) {
  const onSequences = profile.speedTests.batchSizeTimesConcurrency;
  const atLeast = batchSize >= buckets.batchSizeOpenEnded;
  const indexField: 'activeSequences' | 'activeSequencesAtLeast' | 'batchSize' | 'batchSizeAtLeast' = onSequences
    ? atLeast ? 'activeSequencesAtLeast' : 'activeSequences'
    : atLeast ? 'batchSizeAtLeast' : 'batchSize';
  return {
    value: atLeast ? buckets.batchSizeOpenEnded : batchSize,
    atLeast,
    column: onSequences ? 'r.active_sequences' : 'r.batch_size',
    indexField,
    countedDimension: onSequences ? 'activeSequences' : 'batchSize',
  };
}

async function resolveQuery(deps: LeaderboardDeps, query: LeaderboardQuery, readIndex = deps.readIndex ?? noReadIndex): Promise<ResolvedQuery> {
  if (!query.hardwareName) return { query };
  const named = JSON.stringify([query.hardwareName, query.hwClass ?? null, query.memTier ?? null, query.os ?? null]);
  return { query, hardwareIds: await readIndex.resolved(`hardware-name:${named}`, () => hardwareProfilesMatching(deps.db, query)) };
}

/** The hardware profiles a `hardwareName` (with the query's other hardware filters) names. */
function hardwareProfilesMatching(db: LeaderboardDeps['db'], query: LeaderboardQuery): Promise<string[]> {
  return db('hardware_profiles')
    .modify((q) => {
      // Words in any order, the vendor optional ("Apple M4 Max", "4090 rtx"), as the API documents.
      const { sql, bindings } = everyTokenSql('hardware_search', hardwareNameTokens(query.hardwareName!));
      q.whereRaw(sql, bindings);
      if (query.hwClass) q.where('hw_class', query.hwClass);
      if (query.memTier !== undefined) {
        const [above, upTo] = memTierRange(query.memTier);
        q.where('memory_gb', '>', above).where('memory_gb', '<=', upTo);
      }
      if (query.os) q.where('os_family', query.os);
    })
    .pluck('id');
}

/** Where a `since` window starts. */
const sinceCutoff = (deps: Pick<LeaderboardDeps, 'clock'>, since: NonNullable<LeaderboardQuery['since']>) => new Date(deps.clock.now().getTime() - buckets.since[since]);

/** Every filter reads columns of the run row itself (see the leaderboard-columns migration). */
function applyFilters(q: Knex.QueryBuilder, { query, hardwareIds, createdBefore }: ResolvedQuery, deps: LeaderboardDeps): void {
  // A literal, not a parameter: the ranking indexes are partial on it, and a reused
  // (generic) plan of the prepared page statement can only use them when the SQL says it.
  q.whereRaw("r.status = 'APPROVED'");
  if (query.hfId) q.whereRaw('r.model_id = (select id from models where lower(hf_id) = lower(?))', [query.hfId]);
  if (query.hwClass) q.where('r.hw_class', query.hwClass);
  if (query.memTier !== undefined) q.where('r.mem_tier', query.memTier);
  if (query.engineName) q.where('r.engine_name', query.engineName);
  if (query.quantization) q.where('r.quantization', query.quantization);
  if (query.verified !== undefined) q.where('r.user_verified', query.verified);
  if (query.since) q.where('r.created_at', '>=', sinceCutoff(deps, query.since));
  if (createdBefore) q.where('r.created_at', '<', createdBefore);
  if (hardwareIds) q.whereRaw('r.hardware_id = any(?::uuid[])', [hardwareIds]);
  if (query.paramSize !== undefined) q.where('r.param_bucket', query.paramSize);
  if (query.os) q.where('r.os_family', query.os);
  if (query.backend) q.where('r.backend', query.backend);
  // Separators ignored on both sides: GGUF writes `qwen3moe` where config.json writes `qwen3_moe`.
  if (query.modelFamily) {
    const family = everyTokenSql('r.model_family', [query.modelFamily.toLowerCase()], { squashed: true });
    q.whereRaw(family.sql, family.bindings);
  }
  if (query.isMoE !== undefined) q.where('r.model_is_moe', query.isMoE);
  if (query.batchSize !== undefined) {
    const { column, atLeast, value } = batchBucket(deps.profile, query.batchSize);
    q.where(column, atLeast ? '>=' : '=', value);
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

/** Filters whose totals the count table keeps, alone and in pairs (see src/runs/read-models/run-counts.ts). */
const COUNTED_FILTERS = ['hfId', 'hwClass', 'memTier', 'engineName', 'quantization', 'verified', 'paramSize', 'os', 'backend', 'isMoE', 'contextLen', 'batchSize'] as const;
/** Parameters that page, sort or format the ranking, and `since`, whose total has its own path: not filters of the runs themselves. */
const NOT_RUN_FILTERS = new Set(['limit', 'offset', 'sort', 'format', 'since']);
/**
 * The run filters a query gives. Any parameter not named above is one, so a new filter is
 * counted by counting the runs (exact, slower) until the count tables learn it.
 */
const runFiltersOf = (query: LeaderboardQuery) => Object.entries(query).filter(([name, value]) => value !== undefined && !NOT_RUN_FILTERS.has(name)).map(([name]) => name);
/** The filters the count table pairs with days (run-count layout v4). */
const DAY_PAIRED_FILTERS = new Set<string>(['hwClass', 'memTier', 'engineName', 'quantization', 'paramSize']);
const DAY_MS = 86_400_000;
type CountedFilter = (typeof COUNTED_FILTERS)[number];

/** The count table's value for a filter (a model by its row id; batchSize in its bucket's dimension). */
async function countedValue(deps: LeaderboardDeps, query: LeaderboardQuery, name: CountedFilter): Promise<[string, string] | null> {
  if (name === 'batchSize') return [batchBucket(deps.profile, query.batchSize!).countedDimension, String(query.batchSize)];
  if (name !== 'hfId') return [name, String(query[name])];
  const modelId = await deps.reads.modelIdOf(query.hfId!);
  return modelId ? ['modelId', modelId] : null;
}

/** The cube's filters and columns (see src/runs/read-models/run-cube.ts). */
const CUBE_COLUMNS = { hwClass: 'hw_class', memTier: 'mem_tier', engineName: 'engine_name', quantization: 'quantization', paramSize: 'param_bucket' } as const;

/**
 * The exact number of matching runs when the count tables (kept by triggers in every
 * writing transaction) hold it, as a query of one row `{ total }`: none, one or two
 * counted filters from the pair table; any mix of the five main filters from the cube;
 * hardware filters that resolved to profiles plus at most one run filter, summed over
 * the profiles. 0 when a filter names nothing; null when the runs must be counted. (The
 * query comes wrapped: a returned query builder would be awaited, and so run, here.)
 */
async function totalFromCountTables(deps: LeaderboardDeps, resolved: ResolvedQuery): Promise<{ query: Knex.QueryBuilder } | 0 | null> {
  const { db } = deps;
  const { query, hardwareIds } = resolved;
  // hardwareName was resolved to the profiles in `hardwareIds`.
  if (runFiltersOf(query).some((name) => name !== 'hardwareName' && !(COUNTED_FILTERS as readonly string[]).includes(name))) return null;
  const given = COUNTED_FILTERS.filter((name) => query[name] !== undefined);
  const sum = db.raw('coalesce(sum(n), 0)::int as total');
  if (query.since) {
    if (hardwareIds || given.length > 1 || !given.every((name) => DAY_PAIRED_FILTERS.has(name))) return null;
    return sinceTotal(deps, resolved, given[0] ? await countedValue(deps, query, given[0]) : null);
  }
  if (!hardwareIds && given.length <= 2) {
    const facts: CountFact[] = [];
    for (const name of given) {
      const fact = await countedValue(deps, query, name);
      if (!fact) return 0;
      facts.push(fact);
    }
    return { query: deps.reads.countTableTotal(facts) };
  }
  if (!hardwareIds && given.every((name) => name in CUBE_COLUMNS)) {
    const cube = db('speed_test_run_cube').modify((q) => {
      for (const name of given) q.where(CUBE_COLUMNS[name as keyof typeof CUBE_COLUMNS], query[name] as string | number);
    });
    return { query: cube.select(sum) };
  }
  const runFilters = given.filter((name) => !(HARDWARE_FILTERS as readonly string[]).includes(name));
  // Runs of a profile and a model are not paired in the count table (as many pairs as runs).
  if (hardwareIds && runFilters.length <= 1 && runFilters[0] !== 'hfId') {
    if (hardwareIds.length === 0) return 0;
    const other = runFilters.length ? await countedValue(deps, query, runFilters[0]!) : null;
    return { query: deps.reads.countTableTotal(other ? [['hardwareId', hardwareIds], other] : [['hardwareId', hardwareIds]]) };
  }
  return null;
}

/**
 * A `since` total: the whole days (UTC) after the cut-off's day from the count table,
 * plus the runs of the cut-off's own day from the cut-off on, counted (a day's worth).
 */
function sinceTotal(deps: LeaderboardDeps, resolved: ResolvedQuery, other: CountFact | null): { query: Knex.QueryBuilder } {
  const { db } = deps;
  const cutoff = sinceCutoff(deps, resolved.query.since!);
  const firstWholeDay = Math.floor(cutoff.getTime() / DAY_MS) * DAY_MS + DAY_MS;
  const days: string[] = [];
  // Through tomorrow: a run stamped just after midnight while this request began still counts.
  for (let day = firstWholeDay; day <= deps.clock.now().getTime() + DAY_MS; day += DAY_MS) days.push(new Date(day).toISOString().slice(0, 10));
  const wholeDays = deps.reads.countTableTotal(other ? [['day', days], other] : [['day', days]]);
  const cutoffDay = countingQuery(deps, { ...resolved, createdBefore: new Date(firstWholeDay) });
  return { query: db.select(db.raw('((select total from (?) w) + (select total from (?) c))::int as total', [wholeDays, cutoffDay])) };
}

/** Counts the matching runs themselves, as a query of one row `{ total }`. */
function countingQuery(deps: LeaderboardDeps, resolved: ResolvedQuery): Knex.QueryBuilder {
  return deps.db.from(rankedRuns(deps, resolved).as('c')).select(deps.db.raw('count(*)::int as total'));
}

async function countedTotal(deps: LeaderboardDeps, resolved: ResolvedQuery): Promise<number> {
  const [{ total }] = await countingQuery(deps, resolved);
  return total;
}

export interface LeaderboardPage {
  /** The page's rows as one JSON array text: stored documents with `rank` and the viewer's `myEmoji`. */
  rowsJson: string;
  total: number;
  limit: number;
  offset: number;
}

/** Ranked pages and exports read the documents of the ranked ids `k`, in rank order. */
function rankedDocuments(deps: LeaderboardDeps, ranked: Knex.QueryBuilder, query: LeaderboardQuery, viewerId: string | null) {
  return deps.db
    .from(ranked.as('k'))
    .join('speed_test_run_documents as d', 'd.run_id', 'k.id')
    .select(deps.reads.documentColumns(viewerId, 'k.id'))
    .orderByRaw(orderSql(query.sort, 'k'));
}

/**
 * One statement for a page: its total when the count tables hold it, and its rows,
 * assembled by Postgres into one JSON array text (rank spliced into each stored
 * document, and the viewer's reaction). The app then only wraps it: at 32 concurrent
 * readers the app's one thread, not Postgres, was the limit, and two queries and 50
 * parsed rows cost it more than the rest of the request.
 *
 * With a known total the page's size is known too, so the ranked scan stops at the last
 * row instead of reading on to prove there are no more (and an empty page reads nothing).
 */
function pageStatement(deps: LeaderboardDeps, resolved: ResolvedQuery, total: { query: Knex.QueryBuilder } | null, viewerId: string | null) {
  const { db } = deps;
  const { query } = resolved;
  const size = total ? db.raw('least(?::int, greatest(0, (select total from t) - ?::int))', [query.limit, query.offset]) : query.limit;
  const document = viewerId
    ? db.raw(
        `case when e.emoji is null then d.document else left(d.document, -${MY_EMOJI_NULL_TAIL.length}) || to_json(e.emoji)::text || '}' end`,
      )
    : db.raw('d.document');
  const rows = db.raw(
    `select coalesce(string_agg('{"rank":' || (?::int + k.place) || ',' || substr(?, 2), ',' order by k.place), '') from (
       select p.id, row_number() over (order by ${orderSql(query.sort, 'p')}) as place from (
         select * from (?) r order by ${orderSql(query.sort, 'r')} limit ? offset ?::int
       ) p
     ) k
     join speed_test_run_documents d on d.run_id = k.id
     ${viewerId ? 'left join run_reactions e on e.run_kind = ? and e.run_id = k.id and e.user_id = ?' : ''}`,
    [query.offset, document, rankedRuns(deps, resolved), size, query.offset, ...(viewerId ? [SPEED_TEST_REACTION_KIND, viewerId] : [])],
  );
  return total ? db.raw('with t as (?) select (select total from t) as total, (?) as rows', [total.query, rows]) : db.raw('select (?) as rows', [rows]);
}

/**
 * The unfiltered ranking (a third of all traffic) runs as a prepared statement: its plan
 * is the same for every page. Filtered ones are planned for their values: a reused
 * generic plan cannot tell a rare class from a common one (hwClass=CPU_ONLY took 10 ms
 * through the general ranking index instead of 4 ms through the class's own).
 */
function pageRows(deps: LeaderboardDeps, { query }: ResolvedQuery, statement: Knex.Raw): Promise<{ total?: number; rows: string }[]> {
  return runFiltersOf(query).length > 0
    ? (statement.then((result: { rows: { total?: number; rows: string }[] }) => result.rows) as Promise<{ total?: number; rows: string }[]>)
    : queryPrepared(deps.db, statement);
}

/**
 * One page of the ranking; `withTotal: false` skips counting when the count tables do
 * not hold the total (charts need none). `viewerId` fills each row's `myEmoji`.
 */
async function leaderboardPage(
  deps: LeaderboardDeps,
  query: LeaderboardQuery,
  { withTotal = true, viewerId = null }: { withTotal?: boolean; viewerId?: string | null } = {},
): Promise<LeaderboardPage> {
  const index = await deps.readIndex?.current();
  if (index) return indexedPage(deps, index, query, viewerId);
  const resolved = await resolveQuery(deps, query);
  const page = { limit: query.limit, offset: query.offset };
  const counts = await totalFromCountTables(deps, resolved);
  if (counts === 0) return { rowsJson: '[]', total: 0, ...page };
  const [[answer], counted] = await Promise.all([
    pageRows(deps, resolved, pageStatement(deps, resolved, counts, viewerId)),
    counts === null && withTotal ? countedTotal(deps, resolved) : undefined,
  ]);
  return { rowsJson: `[${answer!.rows}]`, total: answer!.total ?? counted ?? Number.NaN, ...page };
}

/** The filter of a query in the read index's terms: the model and the hardware names resolved to ids, as the SQL path resolves them. */
async function indexFilterOf(deps: LeaderboardDeps, { query, hardwareIds }: ResolvedQuery): Promise<IndexFilter | null> {
  const filter: IndexFilter = {
    hardwareIds,
    hwClass: query.hwClass,
    memTier: query.memTier,
    engineName: query.engineName,
    quantization: query.quantization,
    verified: query.verified,
    paramBucket: query.paramSize,
    osFamily: query.os,
    backend: query.backend,
    modelFamily: query.modelFamily,
    isMoE: query.isMoE,
    ctxBucket: query.contextLen,
    plausible: query.plausible,
  };
  if (query.batchSize !== undefined) {
    const { indexField, value } = batchBucket(deps.profile, query.batchSize);
    filter[indexField] = value;
  }
  if (query.since) filter.created = { atOrAfter: sinceCutoff(deps, query.since).getTime() * 1000 };
  if (query.hfId) {
    const modelId = await deps.reads.modelIdOf(query.hfId);
    if (!modelId) return null;
    filter.modelIds = [modelId];
  }
  return filter;
}

/** A page ranked and counted by the read index; its rows are the stored documents. */
async function indexedPage(deps: LeaderboardDeps, index: RunIndex, query: LeaderboardQuery, viewerId: string | null): Promise<LeaderboardPage> {
  const page = { limit: query.limit, offset: query.offset };
  const filter = await indexFilterOf(deps, await resolveQuery(deps, query));
  if (!filter) return { rowsJson: '[]', total: 0, ...page };
  const { slots, total } = index.query({ filter, order: query.sort, offset: query.offset, limit: query.limit, bestPerHardware: query.bestPer === 'hardware' });
  const rows = await deps.reads.indexedDocuments(index, slots, viewerId);
  return { rowsJson: rankedRowsJson(rows, query.offset + 1), total, ...page };
}

/** The page as the API answers it: the rows Postgres assembled, spliced in as they are. */
export function leaderboardJson(profile: RevisionProfile, page: LeaderboardPage): string {
  const rows = answersDocumentAsStored(profile) ? new JsonText(page.rowsJson) : jsonArray(leaderboardRuns(profile, page).map((run) => JSON.stringify(run)));
  return jsonObject({ rows, total: page.total, limit: page.limit, offset: page.offset });
}

/** The page's runs as objects in the revision's shape, for the pages. */
export function leaderboardRuns(profile: RevisionProfile, page: LeaderboardPage): (SpeedTestRun & { rank: number })[] {
  return (JSON.parse(page.rowsJson) as (SpeedTestRun & { rank: number })[]).map((run) => speedTestRunForRevision(profile, run));
}

/** Every matching run in rank order, read through a cursor (constant memory) for exports. */
async function* leaderboardRows(deps: LeaderboardDeps, query: LeaderboardQuery): AsyncGenerator<SpeedTestRun & { rank: number }> {
  // Exports read the database throughout, names included (no `current()` has caught up for them).
  const stream = rankedDocuments(deps, rankedRuns(deps, await resolveQuery(deps, query, noReadIndex)), query, null).stream({ highWaterMark: 200 });
  let rank = 0;
  try {
    for await (const row of stream) {
      rank += 1;
      yield { rank, ...toSpeedTestRun(deps.profile, row as SpeedTestDocumentRow) };
    }
  } finally {
    stream.destroy();
  }
}

/** The ranking of approved runs: pages (with exact totals where the count tables hold them) and exports. */
export function createLeaderboardService(deps: Pick<ServiceDeps, 'db' | 'profile' | 'clock' | 'readIndex'>) {
  const bound: LeaderboardDeps = { ...deps, reads: createSpeedTestReads(deps) };
  return {
    page: (query: LeaderboardQuery, options?: { withTotal?: boolean; viewerId?: string | null }) => leaderboardPage(bound, query, options),
    rows: (query: LeaderboardQuery) => leaderboardRows(bound, query),
  };
}

export type LeaderboardService = ReturnType<typeof createLeaderboardService>;
