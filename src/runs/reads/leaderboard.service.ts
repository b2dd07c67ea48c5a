import type { Knex } from 'knex';
import { queryPrepared } from '../../db/knex.ts';
import { buckets } from '../../constants.ts';
import type { LeaderboardQuery, LeaderboardSort } from './leaderboard-query.schema.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { RunIndex } from '../read-index/run-index.ts';
import {
  applyTerms,
  countFactOf,
  givenFacets,
  leaderboardFacets,
  pairedCountFacts,
  termsOf,
  type CountFact,
  type FacetContext,
  type Term,
} from '../facets.ts';
import { facetContext } from './facet-resolvers.ts';
import { noReadIndex } from '../read-index/read-index.ts';
import { SPEED_TEST_REACTION_KIND, type SpeedTestDocumentRow, type SpeedTestReads, type SpeedTestRun } from './speed-test-reads.ts';
import { MY_EMOJI_NULL_TAIL, documentArray, toSpeedTestRun } from '../run-json.ts';
import { JsonPieces } from '../../lib/json-text.ts';

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

/** A query with its facets turned into terms (names resolved to ids); null terms: a facet names nothing. */
interface ResolvedQuery {
  query: LeaderboardQuery;
  ctx: FacetContext;
  terms: Term[] | null;
}

const REGISTRY = { name: 'leaderboard', facets: leaderboardFacets };

async function resolveQuery(
  deps: LeaderboardDeps,
  query: LeaderboardQuery,
  readIndex = deps.readIndex ?? noReadIndex,
): Promise<ResolvedQuery> {
  const ctx = facetContext({ ...deps, now: deps.clock.now(), readIndex }, REGISTRY, query);
  return { query, ctx, terms: await termsOf(leaderboardFacets, ctx) };
}

/** Approved runs meeting the terms (see the leaderboard-columns migration: every term reads a column of the run row). */
function applyFilters(q: Knex.QueryBuilder, terms: readonly Term[]): void {
  // A literal, not a parameter: the ranking indexes are partial on it, and a reused
  // (generic) plan of the prepared page statement can only use them when the SQL says it.
  q.whereRaw("r.status = 'APPROVED'");
  applyTerms(q, terms);
}

/**
 * The ranked candidate rows: the filtered runs, or with `bestPer=hardware` each hardware
 * profile's best run among them. Selects what the ordering needs.
 */
function rankedRuns(deps: LeaderboardDeps, query: LeaderboardQuery, terms: readonly Term[]) {
  const { column } = SORTS[query.sort];
  const filtered = deps.db('speed_test_runs as r').modify((q) => applyFilters(q, terms));
  if (query.bestPer !== 'hardware') return filtered.select('r.id', `r.${column}`, 'r.created_at');
  const best = filtered
    .clone()
    .select(
      'r.id',
      `r.${column}`,
      'r.created_at',
      deps.db.raw(`row_number() over (partition by r.hardware_id order by ${orderSql(query.sort, 'r')}) as place`),
    );
  return deps.db.from(best.as('b')).where('b.place', 1).select('b.id', `b.${column}`, 'b.created_at');
}

/** Whether a query has no filter and ranks every run: its page statement's plan is the same for every page. */
const unfiltered = (query: LeaderboardQuery) =>
  query.bestPer === undefined && givenFacets(leaderboardFacets, query).every(([name]) => name === 'since');
const DAY_MS = 86_400_000;

/**
 * The exact number of matching runs when the count tables (kept by triggers in every
 * writing transaction) hold it, as a query of one row `{ total }`: none, one or two
 * counted filters from the pair table; any mix of the five main filters from the cube;
 * hardware filters that resolved to profiles plus at most one run filter, summed over
 * the profiles. 0 when a filter names nothing; null when the runs must be counted. (The
 * query comes wrapped: a returned query builder would be awaited, and so run, here.)
 */
async function totalFromCountTables(
  deps: LeaderboardDeps,
  { query, ctx, terms }: ResolvedQuery & { terms: Term[] },
): Promise<{ query: Knex.QueryBuilder } | 0 | null> {
  // The count tables count runs, not each profile's best.
  if (query.bestPer !== undefined) return null;
  if (query.since) {
    const others = givenFacets(leaderboardFacets, query).filter(([name]) => name !== 'since');
    if (others.length > 1 || others.some(([, facet]) => !facet.count?.perDay)) return null;
    const [other] = others;
    return sinceTotal(deps, query, terms, other ? await countFactOf(...other, ctx) : null);
  }
  const facts = await pairedCountFacts(leaderboardFacets, ctx);
  if (facts === 0) return 0;
  if (facts) return { query: deps.reads.countTableTotal(facts) };
  const given = givenFacets(leaderboardFacets, query);
  if (given.every(([, facet]) => facet.count?.cube)) {
    const cube = deps.db('speed_test_run_cube').modify((q) => {
      for (const [, facet, value] of given) q.where(facet.count!.cube!, value as string | number);
    });
    return { query: cube.select(deps.db.raw('coalesce(sum(n), 0)::int as total')) };
  }
  return null;
}

/**
 * A `since` total: the whole days (UTC) after the cut-off's day from the count table,
 * plus the runs of the cut-off's own day from the cut-off on, counted (a day's worth).
 */
function sinceTotal(
  deps: LeaderboardDeps,
  query: LeaderboardQuery,
  terms: readonly Term[],
  other: CountFact | null,
): { query: Knex.QueryBuilder } {
  const { db } = deps;
  const cutoff = deps.clock.now().getTime() - buckets.since[query.since!];
  const firstWholeDay = Math.floor(cutoff / DAY_MS) * DAY_MS + DAY_MS;
  const days: string[] = [];
  // Through tomorrow: a run stamped just after midnight while this request began still counts.
  for (let day = firstWholeDay; day <= deps.clock.now().getTime() + DAY_MS; day += DAY_MS)
    days.push(new Date(day).toISOString().slice(0, 10));
  const wholeDays = deps.reads.countTableTotal(other ? [['day', days], other] : [['day', days]]);
  const cutoffDay = countingQuery(deps, query, [...terms, { op: 'created', window: { before: firstWholeDay * 1000 } }]);
  return { query: db.select(db.raw('((select total from (?) w) + (select total from (?) c))::int as total', [wholeDays, cutoffDay])) };
}

/** Counts the matching runs themselves, as a query of one row `{ total }`. */
function countingQuery(deps: LeaderboardDeps, query: LeaderboardQuery, terms: readonly Term[]): Knex.QueryBuilder {
  return deps.db.from(rankedRuns(deps, query, terms).as('c')).select(deps.db.raw('count(*)::int as total'));
}

async function countedTotal(deps: LeaderboardDeps, query: LeaderboardQuery, terms: readonly Term[]): Promise<number> {
  const [{ total }] = await countingQuery(deps, query, terms);
  return total;
}

export interface LeaderboardPage {
  /** The page's rows as one JSON array, in pieces: stored documents with `rank` and the viewer's `myEmoji`. */
  rows: JsonPieces;
  /** The same as one text (joined when read: the API writes the pieces into its answer, pages parse this). */
  readonly rowsJson: string;
  total: number;
  limit: number;
  offset: number;
  /**
   * With `since`, when answered by the read index: the last moment (ms since the epoch) at
   * which this page is still exact by the clock alone, when its oldest run leaves the window
   * (Infinity: no run matches). Runs arriving or changing are change notices, not the clock.
   */
  stableUntilMs?: number;
}

/** A page of these rows (their one text joined when first read: a page view reads it more than once). */
function pageOf(rows: JsonPieces, total: number, rest: Pick<LeaderboardPage, 'limit' | 'offset' | 'stableUntilMs'>): LeaderboardPage {
  let text: string | undefined;
  return {
    rows,
    get rowsJson() {
      text ??= rows.text();
      return text;
    },
    total,
    ...rest,
  };
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
function pageStatement(
  deps: LeaderboardDeps,
  query: LeaderboardQuery,
  terms: readonly Term[],
  total: { query: Knex.QueryBuilder } | null,
  viewerId: string | null,
) {
  const { db } = deps;
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
    [query.offset, document, rankedRuns(deps, query, terms), size, query.offset, ...(viewerId ? [SPEED_TEST_REACTION_KIND, viewerId] : [])],
  );
  return total
    ? db.raw('with t as (?) select (select total from t) as total, (?) as rows', [total.query, rows])
    : db.raw('select (?) as rows', [rows]);
}

/**
 * The unfiltered ranking (a third of all traffic) runs as a prepared statement: its plan
 * is the same for every page. Filtered ones are planned for their values: a reused
 * generic plan cannot tell a rare class from a common one (hwClass=CPU_ONLY took 10 ms
 * through the general ranking index instead of 4 ms through the class's own).
 */
function pageRows(deps: LeaderboardDeps, query: LeaderboardQuery, statement: Knex.Raw): Promise<{ total?: number; rows: string }[]> {
  return !unfiltered(query)
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
  const { ctx, terms } = await resolveQuery(deps, query);
  const page = { limit: query.limit, offset: query.offset };
  if (!terms) return pageOf(documentArray([]), 0, page);
  const counts = await totalFromCountTables(deps, { query, ctx, terms });
  if (counts === 0) return pageOf(documentArray([]), 0, page);
  const [[answer], counted] = await Promise.all([
    pageRows(deps, query, pageStatement(deps, query, terms, counts, viewerId)),
    counts === null && withTotal ? countedTotal(deps, query, terms) : undefined,
  ]);
  return pageOf(new JsonPieces().push('[', answer!.rows, ']'), answer!.total ?? counted ?? Number.NaN, page);
}

/** A page ranked and counted by the read index; its rows are the stored documents. */
async function indexedPage(
  deps: LeaderboardDeps,
  index: RunIndex,
  query: LeaderboardQuery,
  viewerId: string | null,
): Promise<LeaderboardPage> {
  const page = { limit: query.limit, offset: query.offset };
  const { terms } = await resolveQuery(deps, query);
  if (!terms) return pageOf(documentArray([]), 0, page);
  const { slots, total, oldestMatchUs } = index.query({
    terms,
    order: query.sort,
    offset: query.offset,
    limit: query.limit,
    bestPerHardware: query.bestPer === 'hardware',
  });
  const rows = await deps.reads.indexedDocuments(index, slots, viewerId);
  // A run is in `since`'s window while createdAt >= now - window, so the oldest leaves once now passes createdAt + window.
  const stableUntilMs = query.since && oldestMatchUs !== null ? oldestMatchUs / 1000 + buckets.since[query.since] : undefined;
  return pageOf(documentArray(rows, query.offset + 1), total, { ...page, ...(stableUntilMs === undefined ? {} : { stableUntilMs }) });
}

/** Every matching run in rank order, read through a cursor (constant memory) for exports. */
async function* leaderboardRows(deps: LeaderboardDeps, query: LeaderboardQuery): AsyncGenerator<SpeedTestRun & { rank: number }> {
  // Exports read the database throughout, names included (no `current()` has caught up for them).
  const { terms } = await resolveQuery(deps, query, noReadIndex);
  if (!terms) return;
  const stream = rankedDocuments(deps, rankedRuns(deps, query, terms), query, null).stream({ highWaterMark: 200 });
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

/**
 * How many of the query's runs (or, with `bestPer`, hardware profiles) have the figure its
 * sort ranks by: the efficiency sorts' page ranks only those, and says how many there are.
 */
async function rankedWithFigure(deps: LeaderboardDeps, query: LeaderboardQuery): Promise<number> {
  const { terms } = await resolveQuery(deps, query);
  if (!terms) return 0;
  const { column } = SORTS[query.sort];
  const [{ total }] = await deps.db
    .from(rankedRuns(deps, query, terms).as('c'))
    .whereNotNull(`c.${column}`)
    .select(deps.db.raw('count(*)::int as total'));
  return total;
}

/** The ranking of approved runs: pages (with exact totals where the count tables hold them) and exports. */
export function createLeaderboardService(deps: LeaderboardDeps) {
  return {
    withFigure: (query: LeaderboardQuery) => rankedWithFigure(deps, query),
    /** The engines with approved runs (from the count cube, which the writes keep): the filter marks the others. */
    enginesWithRuns: async (): Promise<string[]> =>
      deps.db('speed_test_run_cube').groupBy('engine_name').havingRaw('sum(n) > 0').orderBy('engine_name').pluck('engine_name'),
    page: (query: LeaderboardQuery, options?: { withTotal?: boolean; viewerId?: string | null }) => leaderboardPage(deps, query, options),
    rows: (query: LeaderboardQuery) => leaderboardRows(deps, query),
  };
}

export type LeaderboardService = ReturnType<typeof createLeaderboardService>;
