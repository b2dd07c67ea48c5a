import type { Knex } from 'knex';
import type { ServiceDeps } from '../../services/deps.ts';
import type { ModelScope } from '../../services/model-tree.ts';
import { applyTerms, pairedCountFacts, resultsListFacets, termsOf, type Term } from '../facets.ts';
import { noReadIndex, type RunReadIndex } from '../read-index/read-index.ts';
import type { RunIndex } from '../read-index/run-index.ts';
import { facetContext } from './facet-resolvers.ts';
import type { SpeedTestListQuery } from './speed-test-query.schema.ts';
import type { SpeedTestDocumentRow, SpeedTestReads, SpeedTestRun } from './speed-test-reads.ts';
import { toSpeedTestRun } from '../run-json.ts';

export type { ModelScope };

export interface SpeedTestList {
  benchmarks: SpeedTestDocumentRow[];
  total: number;
  limit: number;
  offset: number;
}

const REGISTRY = { name: 'list', facets: resultsListFacets };

/** Approved runs meeting the terms. */
function applyListFilters(q: Knex.QueryBuilder, terms: readonly Term[]): void {
  q.where('r.status', 'APPROVED');
  applyTerms(q, terms);
}

/** Whether the terms admit no run before any is read: a name that resolved to no model or profile. */
const matchesNothing = (terms: readonly Term[] | null): terms is null =>
  !terms || terms.some((term) => term.op === 'anyOf' && term.values.length === 0);

/**
 * The results list: one page (`viewerId` fills each run's `myEmoji`), newest first, or
 * every match for exports. Filters come from the facet registry (src/runs/facets.ts);
 * the read index answers when it is ready, else Postgres, with the count table's total
 * where it holds one.
 */
export function createResultsListReads({
  db,
  profile,
  clock,
  readIndex,
  reads,
}: Pick<ServiceDeps, 'db' | 'profile' | 'clock' | 'readIndex'> & { reads: SpeedTestReads }) {
  const contextOf = (query: SpeedTestListQuery, index: RunReadIndex, modelScope: ModelScope = 'tree') =>
    facetContext({ db, profile, now: clock.now(), reads, readIndex: index }, REGISTRY, query, modelScope);

  /** A page found and counted by the read index, newest first. */
  async function indexedList(
    index: RunIndex,
    query: SpeedTestListQuery,
    terms: readonly Term[],
    viewerId: string | null,
  ): Promise<SpeedTestList> {
    const { slots, total } = index.query({ terms, order: 'newest', offset: query.offset, limit: query.limit });
    return { benchmarks: await reads.indexedDocuments(index, slots, viewerId), total, limit: query.limit, offset: query.offset };
  }

  return {
    async list(query: SpeedTestListQuery, viewerId: string | null = null, modelScope: ModelScope = 'tree'): Promise<SpeedTestList> {
      const page = { limit: query.limit, offset: query.offset };
      // The index first: a strict read catches up before names are resolved through it.
      const index = await readIndex?.current();
      const ctx = contextOf(query, readIndex ?? noReadIndex, modelScope);
      const terms = await termsOf(resultsListFacets, ctx);
      if (matchesNothing(terms)) return { benchmarks: [], total: 0, ...page };
      if (index) return indexedList(index, query, terms, viewerId);
      const filter = (q: Knex.QueryBuilder) => applyListFilters(q, terms);
      const facts = await pairedCountFacts(resultsListFacets, ctx);
      if (facts === 0) return { benchmarks: [], total: 0, ...page };
      if (!facts) {
        const [benchmarks, [{ total }]] = await Promise.all([
          reads.findDocuments(filter, page, viewerId),
          db('speed_test_runs as r').modify(filter).count<{ total: number }[]>('* as total'),
        ]);
        return { benchmarks, total, ...page };
      }
      const [{ total }] = (await reads.countTableTotal(facts)) as { total: number }[];
      // A known total sizes the page, so the scan stops at its last run (as on the leaderboard).
      const size = Math.min(query.limit, Math.max(0, total - query.offset));
      const benchmarks = size > 0 ? await reads.findDocuments(filter, { ...page, limit: size }, viewerId) : [];
      return { benchmarks, total, ...page };
    },

    /** Every matching run, newest first, through a cursor: the csv/jsonl export of the list. */
    async *rows(query: SpeedTestListQuery): AsyncGenerator<SpeedTestRun> {
      const terms = await termsOf(resultsListFacets, contextOf(query, noReadIndex));
      if (matchesNothing(terms)) return;
      const stream = reads
        .withDocuments()
        .select(reads.documentColumns(null))
        .modify((q) => applyListFilters(q, terms))
        .orderBy([
          { column: 'r.created_at', order: 'desc' },
          { column: 'r.id', order: 'desc' },
        ])
        .stream({ highWaterMark: 200 });
      try {
        for await (const row of stream) yield toSpeedTestRun(profile, row as SpeedTestDocumentRow);
      } finally {
        stream.destroy();
      }
    },
  };
}

export type ResultsListReads = ReturnType<typeof createResultsListReads>;
