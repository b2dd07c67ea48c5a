import type { Knex } from 'knex';
import type { Db } from '../db/knex.ts';
import { contentHash } from '../lib/canonical-json.ts';
import type { Clock } from '../lib/clock.ts';
import { HttpError, NotFound, RateLimited } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import { hardwareSearchText, memoryGb, osFamily, runFacets } from '../lib/run-facets.ts';
import { normaliseSubmission, type NormalisedSpeedTest } from '../lib/speed-test-normalise.ts';
import type { RevisionProfile } from '../revisions.ts';
import type { SpeedTestListQuery } from '../schemas/speed-test-query.schema.ts';
import type { HubClient } from './hub.service.ts';
import { runVerdict, verdictColumns } from './plausibility.service.ts';
import { catalogueModel, resolveModel, toModelSummary, type ModelRow, type ResolvedModel } from './models.service.ts';
import { jsonArray, jsonObject } from '../lib/json-text.ts';
import { countTableTotal, findRunDocuments, findRuns, runDocumentColumns, runJson, runsQuery, toRun, type CountFact, type RunDocumentRow, type SpeedTestRun } from './run-reads.ts';

export interface SpeedTestDeps {
  db: Db;
  profile: RevisionProfile;
  hub: HubClient;
  hubMode: 'online' | 'offline';
  clock: Clock;
}

export type { SpeedTestRun };

const IDEMPOTENCY_SCOPE = 'speed-test';

// ---------------------------------------------------------------------------
// Validation and dry-run
// ---------------------------------------------------------------------------

interface ValidatedSubmission {
  normalised: NormalisedSpeedTest;
  model: ResolvedModel;
}

/** Everything a submission must pass, including the hub check; writes nothing. */
async function validateSubmission(deps: SpeedTestDeps, body: unknown): Promise<ValidatedSubmission> {
  const normalised = normaliseSubmission(deps.profile, body);
  const model = await resolveModel(deps, normalised.hfId);
  return { normalised, model };
}

export async function dryRunSpeedTest(deps: SpeedTestDeps, body: unknown) {
  const { normalised, model } = await validateSubmission(deps, body);
  const summary =
    'catalogued' in model
      ? { ...toModelSummary(model.catalogued), catalogued: true }
      : { ...model.fromHub, base: model.fromHub.base, catalogued: false };
  return { valid: true as const, parsed: { ...normalised, hfId: summary.hfId, model: summary } };
}

// ---------------------------------------------------------------------------
// Submission
// ---------------------------------------------------------------------------

export interface SubmissionResult {
  run: SpeedTestRun;
  /** Submissions left in the window and when it ends (for a replay: the window as it is now). */
  rateLimit: { remaining: number; resetAt: Date };
  replayed: boolean;
}

/** A replayed 201 reports the user's window as it stands, like any 201. */
async function replayResult(deps: SpeedTestDeps, userId: string, run: SpeedTestRun): Promise<SubmissionResult> {
  const window = await submissionWindowState(deps, userId);
  return { run, replayed: true, rateLimit: { remaining: window.canSubmit ? 1 : 0, resetAt: window.nextAt ?? deps.clock.now() } };
}

/** Thrown inside the transaction when a concurrent request with the same key won. */
class IdempotencyRace extends Error {}

async function findIdempotentReplay(db: Db, userId: string, key: string, requestHash: string): Promise<SpeedTestRun | undefined> {
  const stored = await db('idempotency_keys').where({ user_id: userId, scope: IDEMPOTENCY_SCOPE, key }).first();
  if (!stored) return undefined;
  if (stored.request_hash !== requestHash) {
    throw new HttpError(422, 'Idempotency-Key was already used with a different request body');
  }
  return stored.response as SpeedTestRun;
}

/**
 * One submission per user and window, claimed atomically: the upsert only moves the
 * window when the last accepted submission is older than the window. Runs in the
 * submission's transaction, so a failed submission leaves the window untouched.
 */
async function claimSubmissionWindow(trx: Db, deps: SpeedTestDeps, userId: string, now: Date): Promise<Date> {
  const rule = deps.profile.rateLimits.speedTestSubmission;
  const windowStart = new Date(now.getTime() - rule.windowMs);
  const claimed = await trx.raw<{ rows: unknown[] }>(
    `insert into submission_windows (user_id, bucket, last_submitted_at) values (?, ?, ?)
     on conflict (user_id, bucket) do update set last_submitted_at = excluded.last_submitted_at
     where submission_windows.last_submitted_at <= ?
     returning last_submitted_at`,
    [userId, rule.bucket, now, windowStart],
  );
  if (claimed.rows.length === 0) {
    const { last_submitted_at: last } = await trx('submission_windows').where({ user_id: userId, bucket: rule.bucket }).first();
    const retryAfterMs = Math.max(1, last.getTime() + rule.windowMs - now.getTime());
    throw new RateLimited(rule.message, retryAfterMs, { retryAfterMs, lastSubmittedAt: last.toISOString() });
  }
  return new Date(now.getTime() + rule.windowMs);
}

/** Identical setups share one row: insert by content hash, or find the existing one. */
async function upsertByContentHash(trx: Db, table: 'hardware_profiles' | 'engines', row: Record<string, unknown>, content: unknown): Promise<string> {
  const hash = contentHash(content);
  await trx(table).insert({ ...row, content_hash: hash }).onConflict('content_hash').ignore();
  return (await trx(table).where({ content_hash: hash }).first('id')).id;
}

/** The hardware_profiles row of a normalised profile (without its content hash). */
export function hardwareProfileRow(hw: NormalisedSpeedTest['hardware']) {
  const get = <K extends string>(key: K) => (hw as Record<string, unknown>)[key] ?? null;
  return {
    hw_class: hw.hwClass,
    gpu_name: get('gpuName'),
    gpu_count: get('gpuCount'),
    vram_gb: get('vramGb'),
    total_vram_gb: get('totalVramGb'),
    is_heterogeneous_gpu: get('isHeterogeneousGpu') ?? false,
    chip_vendor: get('chipVendor'),
    chip_family: get('chipFamily'),
    chip_variant: get('chipVariant'),
    unified_memory_gb: get('unifiedMemoryGb'),
    cpu: get('cpu'),
    ram_gb: get('ramGb'),
    os: get('os'),
    // What the hardware filters match profiles on (runs carry the same copies).
    memory_gb: memoryGb(hw),
    os_family: osFamily(hw.os),
    hardware_search: hardwareSearchText(hw),
    details: JSON.stringify(hw),
  };
}

/**
 * Writes one validated run (inside the caller's transaction): the de-duplicated hardware
 * and engine rows, the run with its leaderboard facts and roofline verdict, and the
 * model's run count. Submissions and the demo seeder both come through here.
 */
export async function storeRun(
  trx: Db,
  { normalised, model: modelRow, userId, createdAt }: { normalised: NormalisedSpeedTest; model: ModelRow; userId: string; createdAt: Date },
): Promise<string> {
  const hardwareId = await upsertByContentHash(trx, 'hardware_profiles', hardwareProfileRow(normalised.hardware), normalised.hardware);
  const engine = {
    name: normalised.engineName,
    version: normalised.engineVersion ?? null,
    repository: normalised.engineRepository ?? null,
    build: normalised.engineBuild ?? null,
    commit: normalised.engineCommit ?? null,
  };
  const engineId = await upsertByContentHash(trx, 'engines', engine, engine);
  const { is_verified: userVerified } = await trx('users').where({ id: userId }).first('is_verified');
  const [{ id }] = await trx('speed_test_runs')
    .insert({
      ...runFacets(normalised, modelRow, userVerified),
      ...verdictColumns(
        runVerdict({
          tokSOut: normalised.tokSOut ?? null,
          batchSize: normalised.batchSize,
          quantization: normalised.quantization,
          engineFlags: normalised.engineFlags,
          model: modelRow,
          hardware: normalised.hardware,
        }),
      ),
      user_id: userId,
      model_id: modelRow.id,
      hardware_id: hardwareId,
      engine_id: engineId,
      status: 'APPROVED',
      quantization: normalised.quantization,
      model_revision: normalised.modelRevision,
      backend: normalised.backend ?? null,
      tok_s_out: normalised.tokSOut ?? null,
      tok_s_prefill: normalised.tokSPrefill ?? null,
      tok_s_total: normalised.tokSTotal ?? null,
      ttft_ms: normalised.ttftMs ?? null,
      peak_vram_gb: normalised.peakVramGb ?? null,
      prompt_tokens: normalised.promptTokens,
      output_tokens: normalised.outputTokens,
      context_length: normalised.contextLength,
      batch_size: normalised.batchSize,
      prefill_tokens: normalised.prefillTokens ?? 0,
      gpu_power_watts: normalised.gpuPowerWatts ? JSON.stringify(normalised.gpuPowerWatts) : null,
      total_power_watts: normalised.totalPowerWatts ?? null,
      hardware_cost: normalised.hardwareCost ? JSON.stringify(normalised.hardwareCost) : null,
      notes: normalised.notes ?? null,
      engine_flags: normalised.engineFlags ? JSON.stringify(normalised.engineFlags) : null,
      created_at: createdAt,
    })
    .returning('id');
  await trx('models').where({ id: modelRow.id }).increment('benchmark_count', 1);
  return id;
}

export async function submitSpeedTest(
  deps: SpeedTestDeps,
  userId: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<SubmissionResult> {
  const requestHash = contentHash(body);
  if (idempotencyKey) {
    const replay = await findIdempotentReplay(deps.db, userId, idempotencyKey, requestHash);
    if (replay) return replayResult(deps, userId, replay);
  }
  const { normalised, model } = await validateSubmission(deps, body);
  const now = deps.clock.now();
  try {
    return await deps.db.transaction(async (trx) => {
      if (idempotencyKey) {
        const inserted = await trx('idempotency_keys')
          .insert({ user_id: userId, scope: IDEMPOTENCY_SCOPE, key: idempotencyKey, request_hash: requestHash })
          .onConflict(['user_id', 'scope', 'key'])
          .ignore()
          .returning('key');
        if (inserted.length === 0) throw new IdempotencyRace();
      }
      const resetAt = await claimSubmissionWindow(trx, deps, userId, now);
      const modelRow: ModelRow = 'catalogued' in model ? model.catalogued : await catalogueModel(trx, model.fromHub);
      const id = await storeRun(trx, { normalised, model: modelRow, userId, createdAt: now });
      const run = (await findRuns(trx, deps.profile, (q) => q.where('r.id', id)))[0]!;
      if (idempotencyKey) {
        await trx('idempotency_keys')
          .where({ user_id: userId, scope: IDEMPOTENCY_SCOPE, key: idempotencyKey })
          .update({ status_code: 201, response: JSON.stringify(run) });
      }
      return { run, rateLimit: { remaining: 0, resetAt }, replayed: false };
    });
  } catch (error) {
    if (!(error instanceof IdempotencyRace)) throw error;
    const replay = await findIdempotentReplay(deps.db, userId, idempotencyKey!, requestHash);
    if (!replay) throw new HttpError(409, 'A request with this Idempotency-Key is still in progress; retry shortly');
    return replayResult(deps, userId, replay);
  }
}

/** What the submit form shows: may this user submit now, and if not, when. */
export async function submissionWindowState(deps: SpeedTestDeps, userId: string): Promise<{ canSubmit: boolean; nextAt: Date | null }> {
  const rule = deps.profile.rateLimits.speedTestSubmission;
  const row = await deps.db('submission_windows').where({ user_id: userId, bucket: rule.bucket }).first('last_submitted_at');
  if (!row) return { canSubmit: true, nextAt: null };
  const nextAt = new Date(row.last_submitted_at.getTime() + rule.windowMs);
  return nextAt <= deps.clock.now() ? { canSubmit: true, nextAt: null } : { canSubmit: false, nextAt };
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

/** One approved run's stored document; `viewerId` fills `myEmoji`. */
export async function getSpeedTestDocument(deps: SpeedTestDeps, id: string, viewerId: string | null = null): Promise<RunDocumentRow> {
  if (!isUuid(id)) throw new NotFound('Speed-test run not found');
  const [row] = await findRunDocuments(deps.db, (q) => q.where('r.id', id).where('r.status', 'APPROVED'), undefined, viewerId);
  if (!row) throw new NotFound('Speed-test run not found');
  return row;
}

export async function getSpeedTest(deps: SpeedTestDeps, id: string, viewerId: string | null = null): Promise<SpeedTestRun> {
  return toRun(deps.profile, await getSpeedTestDocument(deps, id, viewerId));
}

/**
 * The models in the tree under a base: itself, its finetunes, their quants, ... Children
 * are linked by row id, or by the base id the hub named when the base is not catalogued.
 */
const MODEL_TREE_SQL = `with recursive tree(id, hf_id) as (
    select id, hf_id from models where lower(hf_id) = lower(?) or lower(base_hf_id) = lower(?)
    union
    select child.id, child.hf_id from models child
      join tree on child.base_model_id = tree.id or lower(child.base_hf_id) = lower(tree.hf_id)
  ) select id from tree`;

/** Hardware filters of the list and the profile columns they match. */
const HARDWARE_LIST_FILTERS = [['gpuName', 'gpu_name'], ['chipVendor', 'chip_vendor'], ['chipFamily', 'chip_family'], ['chipVariant', 'chip_variant']] as const;

/**
 * The list's model tree and hardware filters resolved to ids before runs are read: a
 * tree of models and a few hundred profiles, so the runs are then found by id (and a
 * filter that matches nothing costs no run scan at all).
 */
interface ResolvedListQuery {
  query: SpeedTestListQuery;
  modelIds?: string[];
  hardwareIds?: string[];
}

async function resolveListQuery(db: Db, query: SpeedTestListQuery): Promise<ResolvedListQuery> {
  const resolved: ResolvedListQuery = { query };
  if (query.hfId) resolved.modelIds = (await db.raw(MODEL_TREE_SQL, [query.hfId, query.hfId])).rows.map((row: { id: string }) => row.id);
  if (HARDWARE_LIST_FILTERS.some(([param]) => query[param])) {
    resolved.hardwareIds = await db('hardware_profiles')
      .modify((q) => {
        for (const [param, column] of HARDWARE_LIST_FILTERS) if (query[param]) q.where(column, query[param]);
        if (query.hwClass) q.where('hw_class', query.hwClass);
      })
      .pluck('id');
  }
  return resolved;
}

const matchesNothing = ({ modelIds, hardwareIds }: ResolvedListQuery) => modelIds?.length === 0 || hardwareIds?.length === 0;

/**
 * The total from the count table when its filters are ones it keeps (class, verified,
 * the model tree, the hardware profiles; two at most, profiles never with models); null
 * when the runs must be counted.
 */
function listTotalFromCountTable(db: Db, { query, modelIds, hardwareIds }: ResolvedListQuery): Knex.QueryBuilder | null {
  const counted = new Set(['hfId', 'hwClass', 'verified', ...HARDWARE_LIST_FILTERS.map(([param]) => param), 'limit', 'offset', 'format']);
  if (Object.entries(query).some(([key, value]) => value !== undefined && !counted.has(key))) return null;
  const facts: CountFact[] = [];
  if (modelIds) facts.push(['modelId', modelIds]);
  if (hardwareIds) facts.push(['hardwareId', hardwareIds]);
  // The profiles already carry the class.
  else if (query.hwClass) facts.push(['hwClass', query.hwClass]);
  if (query.verified !== undefined) facts.push(['verified', String(query.verified)]);
  if (facts.length > 2 || (modelIds && hardwareIds)) return null;
  return countTableTotal(db, facts);
}

function applyListFilters(q: Knex.QueryBuilder, { query, modelIds, hardwareIds }: ResolvedListQuery): void {
  q.where('r.status', 'APPROVED');
  if (modelIds) q.whereRaw('r.model_id = any(?::uuid[])', [modelIds]);
  if (query.hwClass) q.where('r.hw_class', query.hwClass);
  if (hardwareIds) q.whereRaw('r.hardware_id = any(?::uuid[])', [hardwareIds]);
  if (query.kvCacheDtype) q.where('r.kv_cache_dtype', query.kvCacheDtype);
  if (query.attentionBackend) q.where('r.attention_backend', query.attentionBackend);
  if (query.gpuLayersMin !== undefined) q.where('r.gpu_layers', '>=', query.gpuLayersMin);
  if (query.tensorParallelMin !== undefined) q.where('r.tensor_parallel', '>=', query.tensorParallelMin);
  if (query.specOnly) q.where('r.spec_decoding', true);
  if (query.mtpOnly) q.where('r.mtp_enabled', true);
  if (query.date) {
    const day = new Date(`${query.date}T00:00:00Z`);
    q.where('r.created_at', '>=', day).where('r.created_at', '<', new Date(day.getTime() + 86_400_000));
  }
  if (query.dateFrom) q.where('r.created_at', '>', new Date(query.dateFrom));
  if (query.dateTo) q.where('r.created_at', '<', new Date(query.dateTo));
  // userId wins over username; either wins over verified.
  if (query.userId) q.where('r.user_id', query.userId);
  else if (query.username) q.whereRaw('r.user_id = (select id from users where lower(username) = lower(?))', [query.username]);
  else if (query.verified !== undefined) q.where('r.user_verified', query.verified);
}

/** Every matching run, newest first, through a cursor: the csv/jsonl export of the list. */
export async function* speedTestRows(deps: SpeedTestDeps, query: SpeedTestListQuery): AsyncGenerator<SpeedTestRun> {
  const resolved = await resolveListQuery(deps.db, query);
  if (matchesNothing(resolved)) return;
  const stream = runsQuery(deps.db)
    .select(runDocumentColumns(deps.db, null))
    .modify((q) => applyListFilters(q, resolved))
    .orderBy([{ column: 'r.created_at', order: 'desc' }, { column: 'r.id', order: 'desc' }])
    .stream({ highWaterMark: 200 });
  try {
    for await (const row of stream) yield toRun(deps.profile, row as RunDocumentRow);
  } finally {
    stream.destroy();
  }
}

export interface SpeedTestList {
  benchmarks: RunDocumentRow[];
  total: number;
  limit: number;
  offset: number;
}

/** One page of the results list; `viewerId` fills each run's `myEmoji`. */
export async function listSpeedTests(deps: SpeedTestDeps, query: SpeedTestListQuery, viewerId: string | null = null): Promise<SpeedTestList> {
  const page = { limit: query.limit, offset: query.offset };
  const resolved = await resolveListQuery(deps.db, query);
  if (matchesNothing(resolved)) return { benchmarks: [], total: 0, ...page };
  const filter = (q: Knex.QueryBuilder) => applyListFilters(q, resolved);
  const fromTable = listTotalFromCountTable(deps.db, resolved);
  if (!fromTable) {
    const [benchmarks, [{ total }]] = await Promise.all([
      findRunDocuments(deps.db, filter, page, viewerId),
      deps.db('speed_test_runs as r').modify(filter).count<{ total: number }[]>('* as total'),
    ]);
    return { benchmarks, total, ...page };
  }
  const [{ total }] = (await fromTable) as { total: number }[];
  // A known total sizes the page, so the scan stops at its last run (see leaderboardPage).
  const size = Math.min(query.limit, Math.max(0, total - query.offset));
  const benchmarks = size > 0 ? await findRunDocuments(deps.db, filter, { ...page, limit: size }, viewerId) : [];
  return { benchmarks, total, ...page };
}

/** The list as the API answers it, assembled from the stored documents. */
export function speedTestListJson(profile: RevisionProfile, list: SpeedTestList): string {
  return jsonObject({ ...list, benchmarks: jsonArray(list.benchmarks.map((row) => runJson(profile, row))) });
}

/** The list's runs as objects, for the pages. */
export function speedTestListRuns(profile: RevisionProfile, list: SpeedTestList): SpeedTestRun[] {
  return list.benchmarks.map((row) => toRun(profile, row));
}

