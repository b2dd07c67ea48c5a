/**
 * Reads the index's facts of the approved runs from Postgres: all of them, streamed in
 * created-at order (bounded memory; the order makes newest-first a reversal), or those
 * of a few changed runs. Rows come as arrays straight from the driver: a million runs
 * are a million small arrays, not a million objects with 30 keys.
 */
import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import { RUN_FACT_NAMES, RUN_FACTS, type FactValue } from '../facets.ts';
import { INDEX_SORTS, RunIndex, type IndexedRun, type IndexSort } from './run-index.ts';

/** Each fact's column (src/runs/facets.ts), then created-at in microseconds (ties are broken on them) and the sort keys. */
const SORT_COLUMNS: Record<IndexSort, string> = {
  tokSOut: 'r.tok_s_out',
  tokSPrefill: 'r.tok_s_prefill',
  ttftMs: 'r.ttft_ms',
  tokPerWatt: 'r.tok_per_watt',
  tokPerDollar: 'r.tok_per_dollar',
};
const COLUMNS = [
  'r.id',
  ...RUN_FACT_NAMES.map((name) => RUN_FACTS[name].column),
  '(extract(epoch from r.created_at) * 1000000)::float8',
  ...INDEX_SORTS.map((sort) => `${SORT_COLUMNS[sort]}::float8`),
].join(', ');

type Row = unknown[];
const BUILD_WORK_MEM = '4MB';
/** Which facts arrive as numeric text (Postgres numerics) and are read as numbers; the others are kept as the driver gives them. */
const NUMERIC_FACT = RUN_FACT_NAMES.map((name) => RUN_FACTS[name].kind === 'number');
const FACT_COUNT = RUN_FACT_NAMES.length;
const CREATED_AT = 1 + FACT_COUNT;
const SORT_AT = Object.fromEntries(INDEX_SORTS.map((sort, i) => [sort, CREATED_AT + 1 + i])) as Record<IndexSort, number>;

function indexedRunOf(row: Row): IndexedRun {
  const facts: (FactValue | null)[] = new Array(FACT_COUNT);
  for (let i = 0; i < FACT_COUNT; i += 1) {
    const value = row[1 + i] as FactValue | null;
    facts[i] = NUMERIC_FACT[i] && value !== null ? Number(value) : value;
  }
  return {
    id: row[0] as string,
    createdAtUs: row[CREATED_AT] as number,
    sortKeys: {
      tokSOut: row[SORT_AT.tokSOut] as number | null,
      tokSPrefill: row[SORT_AT.tokSPrefill] as number | null,
      ttftMs: row[SORT_AT.ttftMs] as number | null,
      tokPerWatt: row[SORT_AT.tokPerWatt] as number | null,
      tokPerDollar: row[SORT_AT.tokPerDollar] as number | null,
    },
    facts,
  };
}

/** Every approved run, oldest first, through a cursor on `client` (a connection of the index's own). */
export async function buildRunIndex(client: pg.ClientBase): Promise<RunIndex> {
  const index = new RunIndex();
  // The cursor's plan walks the (status, created_at) index and sorts each created-at group
  // by id (an incremental sort), so rows stream from the first moment and Postgres reads while
  // this thread indexes. Small sort memory keeps those per-group sorts cheap: 256 MB made the
  // build 1 s slower at a million runs (10.5-10.8 s with 4 MB, 11.7-12.2 s with 256 MB), and a
  // server whose default is large would do the same. Only this connection, only meanwhile.
  await client.query(`set work_mem = '${BUILD_WORK_MEM}'`);
  const stream = client.query(
    new QueryStream(`select ${COLUMNS} from speed_test_runs r where r.status = 'APPROVED' order by r.created_at, r.id`, [], {
      batchSize: 5000,
      rowMode: 'array',
    }),
  );
  try {
    for await (const row of stream) index.upsert(indexedRunOf(row as Row));
  } finally {
    stream.destroy();
  }
  await client.query('reset work_mem');
  index.finishLoad();
  return index;
}

/** What the index must now hold of these runs: the approved ones' facts; every other id is to be removed. */
export async function readIndexedRuns(client: pg.ClientBase, ids: readonly string[]): Promise<IndexedRun[]> {
  if (ids.length === 0) return [];
  const result = await client.query({
    text: `select ${COLUMNS} from speed_test_runs r where r.id = any($1::uuid[]) and r.status = 'APPROVED'`,
    values: [ids],
    rowMode: 'array',
  });
  return (result.rows as Row[]).map(indexedRunOf);
}
