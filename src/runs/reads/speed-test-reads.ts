import type { Knex } from 'knex';
import type { JsonChunk } from '../../lib/json-text.ts';
import type { RunIndex } from '../read-index/run-index.ts';
import type { CountFact } from '../facets.ts';
import { toSpeedTestRun } from '../run-json.ts';
import type { ServiceDeps } from '../../services/deps.ts';

/**
 * Reading speed-test runs back. Every run's JSON (revision 3 form) is kept ready in
 * speed_test_run_documents by triggers (see src/runs/read-models), so lists, single runs,
 * the leaderboard and the pages all read the same text: JSON answers splice it in
 * unparsed; pages parse it. The services that read runs share these reads.
 */
export type SpeedTestRun = Record<string, unknown> & { id: string };

/**
 * A stored document (a text from a query, bytes from the read index's documents) and the
 * reader's own reaction to that run (null for anonymous readers).
 */
export interface SpeedTestDocumentRow {
  document: JsonChunk;
  my_emoji: string | null;
}

/** Reactions to speed-test runs carry this kind (quality runs have their own). */
export const SPEED_TEST_REACTION_KIND = 'speed_test';

/** A filter on the runs `r` (and their documents `d`) of a query. */
export type SpeedTestFilter = (q: Knex.QueryBuilder) => void;

export interface Page {
  limit: number;
  offset: number;
}

export function createSpeedTestReads({ db, profile, readIndex }: Pick<ServiceDeps, 'db' | 'profile' | 'readIndex'>) {
  /**
   * The document of each run `r` and the viewer's reaction to it. Anonymous readers get a
   * constant null, so their queries carry no reaction lookup at all.
   */
  function documentColumns(viewerId: string | null, runIdColumn = 'r.id') {
    const myEmoji = viewerId
      ? db.raw(`(select x.emoji from run_reactions x where x.run_kind = ? and x.run_id = ${runIdColumn} and x.user_id = ?) as my_emoji`, [
          SPEED_TEST_REACTION_KIND,
          viewerId,
        ])
      : db.raw('null::text as my_emoji');
    return ['d.document', myEmoji];
  }

  /** Runs, as `r`, with their documents as `d`. */
  const withDocuments = () => db('speed_test_runs as r').join('speed_test_run_documents as d', 'd.run_id', 'r.id');

  /** The stored rows of the runs matching `filter`, newest first (for answers that splice the JSON). */
  function findDocuments(filter: SpeedTestFilter, page?: Page, viewerId: string | null = null): Promise<SpeedTestDocumentRow[]> {
    const query = withDocuments()
      .select(documentColumns(viewerId))
      .modify(filter)
      .orderBy([
        { column: 'r.created_at', order: 'desc' },
        { column: 'r.id', order: 'desc' },
      ]);
    if (page) query.limit(page.limit).offset(page.offset);
    return query;
  }

  /**
   * The stored rows of a page the read index ranked, in its order: the documents from its
   * cache (misses in one query), the viewer's reactions in one more.
   */
  async function indexedDocuments(index: RunIndex, slots: readonly number[], viewerId: string | null): Promise<SpeedTestDocumentRow[]> {
    if (slots.length === 0 || !readIndex) return [];
    const [documents, reactions] = await Promise.all([
      readIndex.documents(index, slots),
      viewerId
        ? db('run_reactions')
            .where({ run_kind: SPEED_TEST_REACTION_KIND, user_id: viewerId })
            .whereIn(
              'run_id',
              slots.map((slot) => index.idOf(slot)),
            )
            .select('run_id', 'emoji')
        : [],
    ]);
    const emojiOf = new Map((reactions as { run_id: string; emoji: string }[]).map((row) => [index.slotOf(row.run_id), row.emoji]));
    return documents.map(({ slot, document }) => ({ document, my_emoji: emojiOf.get(slot) ?? null }));
  }

  // hfIds never change once a model is in the catalogue, so found ids are kept (not misses:
  // the model may be added any moment).
  const modelIds = new Map<string, string>();
  /** The catalogue id of a model by its hfId (any case), or null. */
  async function modelIdOf(hfId: string): Promise<string | null> {
    const key = hfId.toLowerCase();
    const known = modelIds.get(key);
    if (known) return known;
    const model = await db('models').whereRaw('lower(hf_id) = lower(?)', [hfId]).first('id');
    if (!model) return null;
    if (modelIds.size >= 10_000) modelIds.clear();
    modelIds.set(key, model.id);
    return model.id as string;
  }

  return {
    documentColumns,
    withDocuments,
    findDocuments,
    indexedDocuments,
    modelIdOf,

    /** Runs matching `filter`, newest first, in the revision's shape. */
    async find(filter: SpeedTestFilter, page?: Page, viewerId: string | null = null): Promise<SpeedTestRun[]> {
      return (await findDocuments(filter, page, viewerId)).map((row) => toSpeedTestRun(profile, row));
    },

    /**
     * The number of approved runs matching every fact, from speed_test_run_counts (kept by
     * triggers; see src/runs/read-models), as a query of one row `{ total }`. Dimension names
     * are sorted and joined by '+', values by '|'; at most one fact may be a set, and at most
     * two facts can be given (the table keeps pairs).
     */
    countTableTotal(facts: readonly CountFact[]): Knex.QueryBuilder {
      const sorted = [...facts].sort(([a], [b]) => a.localeCompare(b));
      let values = [''];
      for (const [index, [, value]] of sorted.entries()) {
        const options = typeof value === 'string' ? [value] : value;
        values = values.flatMap((prefix) => options.map((option) => (index === 0 ? option : `${prefix}|${option}`)));
      }
      return db('speed_test_run_counts')
        .where('dimension', sorted.map(([name]) => name).join('+') || 'all')
        .whereRaw('value = any(?::text[])', [values])
        .select(db.raw('coalesce(sum(n), 0)::int as total'));
    },

    /** Approved runs with one filter value, from the count table kept by triggers ('all' = every run). */
    async counted(dimension: string, value: string): Promise<number> {
      const row = await db('speed_test_run_counts').where({ dimension, value }).first('n');
      return row ? Number(row.n) : 0;
    },
  };
}

export type SpeedTestReads = ReturnType<typeof createSpeedTestReads>;
