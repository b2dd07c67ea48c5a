/**
 * Fills the read index from Postgres (streamed: the approved runs' filter facts only, never
 * their documents) and turns a leaderboard query into an index filter (a model by its hfId
 * and `hardwareName` resolve to ids here, as the SQL path resolves them).
 */
import { buckets } from '../constants.ts';
import type { Db } from '../db/knex.ts';
import type { Clock } from '../lib/clock.ts';
import type { LeaderboardQuery } from '../schemas/leaderboard-query.schema.ts';
import { hardwareProfilesMatching, sinceCutoff } from '../services/leaderboard.service.ts';
import { RunIndex, type IndexedRun, type IndexFilter } from './run-index.ts';

/** The columns the index keeps, as the run row has them (created_at in microseconds: ties are broken on them). */
const COLUMNS = `r.id, r.model_id, r.hardware_id, r.hw_class, r.mem_tier, r.engine_name, r.quantization, r.user_verified,
  (extract(epoch from r.created_at) * 1000000)::float8 as created_at_us, r.param_bucket, r.os_family, r.backend, r.model_family,
  r.model_is_moe, r.batch_size, r.ctx_bucket, r.plausibility, r.tok_s_out, r.tok_s_prefill, r.ttft_ms, r.tok_per_watt, r.tok_per_dollar`;

type RunRow = Record<string, unknown>;
const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

export function indexedRunOf(row: RunRow): IndexedRun {
  return {
    id: row.id as string,
    modelId: row.model_id as string,
    hardwareId: row.hardware_id as string,
    hwClass: row.hw_class as string,
    memTier: numberOrNull(row.mem_tier),
    engineName: row.engine_name as string,
    quantization: (row.quantization as string | null) ?? null,
    userVerified: Boolean(row.user_verified),
    createdAtUs: Number(row.created_at_us),
    paramBucket: numberOrNull(row.param_bucket),
    osFamily: (row.os_family as string | null) ?? null,
    backend: (row.backend as string | null) ?? null,
    modelFamily: (row.model_family as string | null) ?? null,
    isMoE: (row.model_is_moe as boolean | null) ?? null,
    batchSize: Number(row.batch_size),
    ctxBucket: numberOrNull(row.ctx_bucket),
    plausibility: row.plausibility as string,
    sortKeys: {
      tokSOut: numberOrNull(row.tok_s_out),
      tokSPrefill: numberOrNull(row.tok_s_prefill),
      ttftMs: numberOrNull(row.ttft_ms),
      tokPerWatt: numberOrNull(row.tok_per_watt),
      tokPerDollar: numberOrNull(row.tok_per_dollar),
    },
  };
}

/** Every approved run, read through a cursor (bounded memory). */
export async function buildRunIndex(db: Db): Promise<RunIndex> {
  const index = new RunIndex();
  const stream = db.select(db.raw(COLUMNS)).from('speed_test_runs as r').whereRaw("r.status = 'APPROVED'").stream({ highWaterMark: 2000 });
  try {
    for await (const row of stream) index.upsert(indexedRunOf(row as RunRow));
  } finally {
    stream.destroy();
  }
  return index;
}

/** Matches no model: an hfId nobody has. */
const NO_MODEL = '00000000-0000-0000-0000-000000000000';

/** A leaderboard query's filter in the index's terms. */
export async function indexFilterOf(db: Db, clock: Clock, query: LeaderboardQuery): Promise<IndexFilter> {
  const filter: IndexFilter = {
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
    if (query.batchSize >= buckets.batchSizeOpenEnded) filter.batchSizeAtLeast = buckets.batchSizeOpenEnded;
    else filter.batchSize = query.batchSize;
  }
  if (query.since) filter.sinceUs = sinceCutoff({ clock }, query.since).getTime() * 1000;
  if (query.hfId) {
    const model = await db('models').whereRaw('lower(hf_id) = lower(?)', [query.hfId]).first('id');
    filter.modelId = model?.id ?? NO_MODEL;
  }
  if (query.hardwareName) filter.hardwareIds = new Set(await hardwareProfilesMatching(db, query));
  return filter;
}
