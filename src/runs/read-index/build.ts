/**
 * Reads the index's facts of the approved runs from Postgres: all of them, streamed in
 * created-at order (bounded memory; the order makes newest-first a reversal), or those
 * of a few changed runs. Rows come as arrays straight from the driver: a million runs
 * are a million small arrays, not a million objects with 30 keys.
 */
import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import { RunIndex, type IndexedRun } from './run-index.ts';

/** The columns the index keeps, in the order `indexedRunOf` reads them (created_at in microseconds: ties are broken on them). */
const COLUMNS = `r.id, r.model_id, r.hardware_id, r.user_id, r.hw_class, r.mem_tier, r.engine_name, r.quantization, r.user_verified,
  (extract(epoch from r.created_at) * 1000000)::float8, r.param_bucket, r.os_family, r.backend, r.model_family,
  r.model_is_moe, r.batch_size, r.ctx_bucket, r.plausibility, r.kv_cache_dtype, r.attention_backend, r.gpu_layers,
  r.tensor_parallel, r.spec_decoding, r.mtp_enabled,
  r.tok_s_out::float8, r.tok_s_prefill::float8, r.ttft_ms::float8, r.tok_per_watt::float8, r.tok_per_dollar::float8,
  r.active_sequences`;

type Row = unknown[];
const BUILD_WORK_MEM = '4MB';
const numberOrNull = (value: unknown) => (value === null ? null : Number(value));
const textOrNull = (value: unknown) => (value === null ? null : (value as string));

function indexedRunOf(row: Row): IndexedRun {
  return {
    id: row[0] as string,
    modelId: row[1] as string,
    hardwareId: row[2] as string,
    userId: row[3] as string,
    hwClass: row[4] as string,
    memTier: numberOrNull(row[5]),
    engineName: row[6] as string,
    quantization: textOrNull(row[7]),
    userVerified: row[8] as boolean,
    createdAtUs: row[9] as number,
    paramBucket: numberOrNull(row[10]),
    osFamily: textOrNull(row[11]),
    backend: textOrNull(row[12]),
    modelFamily: textOrNull(row[13]),
    isMoE: row[14] as boolean | null,
    batchSize: Number(row[15]),
    activeSequences: Number(row[29]),
    ctxBucket: numberOrNull(row[16]),
    plausibility: row[17] as string,
    kvCacheDtype: textOrNull(row[18]),
    attentionBackend: textOrNull(row[19]),
    gpuLayers: numberOrNull(row[20]),
    tensorParallel: numberOrNull(row[21]),
    specDecoding: row[22] as boolean,
    mtpEnabled: row[23] as boolean,
    sortKeys: {
      tokSOut: row[24] as number | null,
      tokSPrefill: row[25] as number | null,
      ttftMs: row[26] as number | null,
      tokPerWatt: row[27] as number | null,
      tokPerDollar: row[28] as number | null,
    },
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
    new QueryStream(`select ${COLUMNS} from speed_test_runs r where r.status = 'APPROVED' order by r.created_at, r.id`, [], { batchSize: 5000, rowMode: 'array' }),
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
