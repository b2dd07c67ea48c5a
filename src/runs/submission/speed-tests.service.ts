import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { NotFound } from '../../lib/errors.ts';
import { jsonArray, jsonObject } from '../../lib/json-text.ts';
import { publicCatalogueEntry } from '../../lib/model-metadata.ts';
import { speedTestFacets } from './run-facts.ts';
import { normaliseParsedSubmission, submittedHardware, type NormalisedHardware, type NormalisedSpeedTest } from './normalise.ts';
import { submissionVerdict, verdictColumns } from './verdict.ts';
import { messages } from '../../messages.ts';
import type { RevisionProfile } from '../../revisions.ts';
import type { SpeedTestListQuery } from '../reads/speed-test-query.schema.ts';
import { speedTestSubmissionSchema, type SpeedTestSubmission } from './speed-test.schema.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { CreatedWindow, IndexFilter, RunIndex } from '../read-index/run-index.ts';
import { noReadIndex, type RunReadIndex } from '../read-index/read-index.ts';
import { upsertByContentHash, upsertHardwareProfile } from '../../services/hardware.service.ts';
import { MODEL_TREE_SQL } from '../../services/model-tree.ts';
import { createModelsService, toModelSummary, type ModelRow, type ModelsService, type ResolvedModel } from '../../services/models.service.ts';
import { createSpeedTestReads, speedTestJson, toSpeedTestRun, type CountFact, type SpeedTestDocumentRow, type SpeedTestReads, type SpeedTestRun } from '../reads/speed-test-reads.ts';
import { createSubmissionWindowService, submitInWindow, type WindowState } from '../../services/submission-window.service.ts';
import { assertVisibleWrite } from '../../services/visible-writes.ts';

export type { SpeedTestRun };

/** Idempotency keys of speed-test submissions never meet those of other writes. */
const IDEMPOTENCY_SCOPE = 'speed-test';

export interface ValidatedSubmission {
  normalised: NormalisedSpeedTest;
  model: ResolvedModel;
}

export interface SubmissionResult {
  run: SpeedTestRun;
  /** Submissions left in the window and when it ends (for a replay: the window as it is now). */
  rateLimit: { remaining: number; resetAt: Date };
  replayed: boolean;
}

/** Submitted fields stored elsewhere than in the run's own columns (model, hardware profile, engine row), or not at all. */
const NOT_RUN_COLUMNS = new Set(['hfId', 'hardware', 'engineName', 'engineVersion', 'engineRepository', 'engineBuild', 'engineCommit', 'commandSnippetFlags']);
/** What a run stores for a field its revision does not take. */
const RUN_COLUMN_DEFAULTS = { prefill_tokens: 0 };

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The normalised submission's own fields as the run's columns: a field's column is its
 * name in snake_case (`tokSOut` -> `tok_s_out`), lists and objects are stored as JSON.
 */
function submittedColumns(normalised: NormalisedSpeedTest): Record<string, unknown> {
  const columns: Record<string, unknown> = { ...RUN_COLUMN_DEFAULTS };
  for (const [field, value] of Object.entries(normalised)) {
    if (value === undefined || NOT_RUN_COLUMNS.has(field)) continue;
    columns[snakeCase(field)] = value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
  }
  return columns;
}

/** Every run column a submission may fill: the schema's fields as submittedColumns names them, and the summed power. */
function submittableColumns(profile: RevisionProfile): string[] {
  return [...Object.keys(speedTestSubmissionSchema(profile).shape).filter((field) => !NOT_RUN_COLUMNS.has(field)), 'totalPowerWatts'].map(snakeCase);
}

/**
 * The stored run's submission: hfId, the hardware in its submitted form, the engine row's
 * fields and the run's own columns (submittedColumns read back). What an owner's
 * correction is merged over; fields this revision does not take are left out.
 */
export function submissionOfStoredRun(
  profile: RevisionProfile,
  run: Record<string, unknown>,
  stored: { hfId: string; hardware: NormalisedHardware; engine: { name: string; version: string | null; repository: string | null; build: string | null; commit: string | null } },
): Record<string, unknown> {
  const { engine } = stored;
  const submission: Record<string, unknown> = { hfId: stored.hfId, hardware: submittedHardware(stored.hardware), engineName: engine.name };
  const engineFields = { engineVersion: engine.version, engineRepository: engine.repository, engineBuild: engine.build, engineCommit: engine.commit };
  const gated = new Set<string>(profile.speedTests.revisionOnlyFields);
  // A field the submitter never gave stays not given: the correction's normalisation then
  // defaults it again and lists it, instead of taking the stored default as stated.
  const defaulted = new Set<string>(Array.isArray(run.defaulted_fields) ? (run.defaulted_fields as string[]) : []);
  for (const field of Object.keys(speedTestSubmissionSchema(profile).shape)) {
    if (gated.has(field) || defaulted.has(field) || field in submission) continue;
    const value = field in engineFields ? engineFields[field as keyof typeof engineFields] : NOT_RUN_COLUMNS.has(field) ? undefined : run[snakeCase(field)];
    if (value !== null && value !== undefined) submission[field] = value;
  }
  return submission;
}

/** The model row of a validated submission: the catalogued one, or the hub's entry catalogued now (in `deps`' transaction). */
export async function catalogueModel(deps: ServiceDeps, model: ResolvedModel): Promise<ModelRow> {
  return 'catalogued' in model ? model.catalogued : createModelsService(deps).catalogue(model.fromHub);
}

/**
 * Writes validated runs; build it on the writing transaction, a `writeVisibly` one.
 * Submissions, owners' corrections and the demo seeder all store runs through it.
 */
export function createSpeedTestWriter({ db }: Pick<ServiceDeps, 'db'>) {
  assertVisibleWrite(db);
  /**
   * The run's columns from a normalised submission: the de-duplicated hardware and engine
   * rows, the leaderboard facts and the roofline verdict, and the submitted fields.
   */
  async function runColumns(normalised: NormalisedSpeedTest, modelRow: ModelRow, userId: string): Promise<Record<string, unknown>> {
    const hardwareId = await upsertHardwareProfile(db, normalised.hardware);
    const engine = {
      name: normalised.engineName,
      version: normalised.engineVersion ?? null,
      repository: normalised.engineRepository ?? null,
      build: normalised.engineBuild ?? null,
      commit: normalised.engineCommit ?? null,
    };
    const engineId = await upsertByContentHash(db, 'engines', engine, engine);
    const { is_verified: userVerified } = await db('users').where({ id: userId }).first('is_verified');
    return {
      ...speedTestFacets(normalised, modelRow, userVerified),
      ...verdictColumns(submissionVerdict(normalised, modelRow)),
      ...submittedColumns(normalised),
      model_id: modelRow.id,
      hardware_id: hardwareId,
      engine_id: engineId,
    };
  }

  return {
    /** One new run, APPROVED, and its model's run count. */
    async store({ normalised, model: modelRow, userId, createdAt }: { normalised: NormalisedSpeedTest; model: ModelRow; userId: string; createdAt: Date }): Promise<string> {
      const [{ id }] = await db('speed_test_runs')
        .insert({ ...(await runColumns(normalised, modelRow, userId)), user_id: userId, status: 'APPROVED', created_at: createdAt })
        .returning('id');
      await db('models').where({ id: modelRow.id }).increment('benchmark_count', 1);
      return id;
    },

    /**
     * An approved run rewritten from a corrected submission: every submitted column (those
     * the correction left out cleared), its facts and verdict; a change of model moves the
     * run between the models' run counts. The triggers follow with the document and counts.
     */
    async rewrite(
      profile: RevisionProfile,
      { id, normalised, model: modelRow, userId, previousModelId, correctedAt }: { id: string; normalised: NormalisedSpeedTest; model: ModelRow; userId: string; previousModelId: string; correctedAt: Date },
    ): Promise<void> {
      const cleared = Object.fromEntries(submittableColumns(profile).map((column) => [column, null]));
      await db('speed_test_runs')
        .where({ id })
        .update({ ...cleared, ...(await runColumns(normalised, modelRow, userId)), corrected_at: correctedAt });
      if (previousModelId !== modelRow.id) {
        await db('models').where({ id: previousModelId }).decrement('benchmark_count', 1);
        await db('models').where({ id: modelRow.id }).increment('benchmark_count', 1);
      }
    },
  };
}

/** Everything a submission must pass beyond its schema, the hub check included; writes nothing. */
export async function validateSubmission(profile: RevisionProfile, models: ModelsService, submission: SpeedTestSubmission): Promise<ValidatedSubmission> {
  const normalised = normaliseParsedSubmission(profile, submission);
  const model = await models.resolve(normalised.hfId);
  return { normalised, model };
}

/**
 * Speed-test runs: dry-run and submit (validated, checked on the hub, one per user and
 * window, safe to retry with an Idempotency-Key), and the results list with its exports.
 */
export function createSpeedTestsService(deps: ServiceDeps) {
  const { profile } = deps;
  const reads = createSpeedTestReads(deps);
  const windows = createSubmissionWindowService(deps);
  const models = createModelsService(deps);
  const submissionRule = profile.speedTests.submissionLimit;

  const validate = (submission: SpeedTestSubmission) => validateSubmission(profile, models, submission);

  /** One approved run's stored document; `viewerId` fills `myEmoji`. */
  async function getDocument(id: string, viewerId: string | null = null): Promise<SpeedTestDocumentRow> {
    const [row] = await reads.findDocuments((q) => q.where('r.id', id).where('r.status', 'APPROVED'), undefined, viewerId);
    if (!row) throw new NotFound(messages.speedTestNotFound);
    return row;
  }

  return {
    getDocument,

    async get(id: string, viewerId: string | null = null): Promise<SpeedTestRun> {
      return toSpeedTestRun(profile, await getDocument(id, viewerId));
    },

    /** The whole validation of a real submission, hub included, and the normalised payload; writes nothing. */
    async dryRun(submission: SpeedTestSubmission) {
      const { normalised, model } = await validate(submission);
      const summary =
        'catalogued' in model
          ? { ...toModelSummary(model.catalogued), catalogued: true }
          : { ...publicCatalogueEntry(model.fromHub), catalogued: false };
      // The verdict the run would get, so an agent sees a doubtful figure before submitting it.
      const verdict = submissionVerdict(normalised, await models.verdictFacts(model));
      return {
        valid: true as const,
        parsed: { ...normalised, hfId: summary.hfId, model: summary },
        plausibility: { verdict: verdict.plausibility, decodeBoundTokS: verdict.boundTokS, reason: verdict.reason },
      };
    },

    /**
     * Stores a run (APPROVED at once): validated and checked on the hub first, then in one
     * transaction the user's submission window is claimed, the model catalogued if new and
     * the run written. With an Idempotency-Key a retry gets the first answer again without
     * writing or using the window.
     */
    async submit(userId: string, submission: SpeedTestSubmission, idempotency?: { key: string; requestHash: string }): Promise<SubmissionResult> {
      const { answer: run, replayed, rateLimit } = await submitInWindow(deps, {
        userId,
        rule: submissionRule,
        scope: IDEMPOTENCY_SCOPE,
        idempotency,
        prepare: () => validate(submission),
        store: async (trx, { normalised, model }, now) => {
          const inTransaction = { ...deps, db: trx };
          const modelRow = await catalogueModel(inTransaction, model);
          const id = await createSpeedTestWriter(inTransaction).store({ normalised, model: modelRow, userId, createdAt: now });
          return (await createSpeedTestReads(inTransaction).find((q) => q.where('r.id', id)))[0]!;
        },
      });
      return { run, replayed, rateLimit };
    },

    /** What the submit form shows: may this user submit now, and if not, when. */
    windowState(userId: string): Promise<WindowState> {
      return windows.state(userId, submissionRule);
    },

    ...listReads(deps, reads),
  };
}

export type SpeedTestsService = ReturnType<typeof createSpeedTestsService>;


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

export type { ModelScope } from '../../services/model-tree.ts';
import type { ModelScope } from '../../services/model-tree.ts';


async function resolveListQuery(db: Db, query: SpeedTestListQuery, readIndex: RunReadIndex = noReadIndex, modelScope: ModelScope = 'tree'): Promise<ResolvedListQuery> {
  const resolved: ResolvedListQuery = { query };
  const { hfId } = query;
  if (hfId && modelScope === 'model') {
    const model = await db('models').whereRaw('lower(hf_id) = lower(?)', [hfId]).first('id');
    resolved.modelIds = model ? [model.id as string] : [];
  } else if (hfId) {
    resolved.modelIds = await readIndex.resolved(`model-tree:${hfId}`, async () =>
      (await db.raw(MODEL_TREE_SQL, [hfId, hfId])).rows.map((row: { id: string }) => row.id as string),
    );
  }
  if (HARDWARE_LIST_FILTERS.some(([param]) => query[param])) {
    const named = [...HARDWARE_LIST_FILTERS.map(([param]) => query[param] ?? null), query.hwClass ?? null];
    resolved.hardwareIds = await readIndex.resolved(`list-hardware:${JSON.stringify(named)}`, () =>
      db('hardware_profiles')
        .modify((q) => {
          for (const [param, column] of HARDWARE_LIST_FILTERS) if (query[param]) q.where(column, query[param]);
          if (query.hwClass) q.where('hw_class', query.hwClass);
        })
        .pluck('id'),
    );
  }
  return resolved;
}

const matchesNothing = ({ modelIds, hardwareIds }: ResolvedListQuery) => modelIds?.length === 0 || hardwareIds?.length === 0;

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
  const created = createdWindowOf(query);
  const at = (us: number) => new Date(us / 1000);
  if (created?.atOrAfter !== undefined) q.where('r.created_at', '>=', at(created.atOrAfter));
  if (created?.after !== undefined) q.where('r.created_at', '>', at(created.after));
  if (created?.before !== undefined) q.where('r.created_at', '<', at(created.before));
  // userId wins over username; either wins over verified.
  if (query.userId) q.where('r.user_id', query.userId);
  else if (query.username) q.whereRaw('r.user_id = (select id from users where lower(username) = lower(?))', [query.username]);
  else if (query.verified !== undefined) q.where('r.user_verified', query.verified);
}

/**
 * The list's created-at window in microseconds (both paths read it): `date` is that UTC
 * day, `dateFrom` and `dateTo` exclusive bounds; of two upper bounds the earlier holds.
 */
function createdWindowOf(query: SpeedTestListQuery): CreatedWindow | undefined {
  const us = (at: Date) => at.getTime() * 1000;
  const created: CreatedWindow = {};
  const before = (at: Date) => (created.before = Math.min(created.before ?? Infinity, us(at)));
  if (query.date) {
    const day = new Date(`${query.date}T00:00:00Z`);
    created.atOrAfter = us(day);
    before(new Date(day.getTime() + 86_400_000));
  }
  if (query.dateFrom) created.after = us(new Date(query.dateFrom));
  if (query.dateTo) before(new Date(query.dateTo));
  return Object.keys(created).length > 0 ? created : undefined;
}

export interface SpeedTestList {
  benchmarks: SpeedTestDocumentRow[];
  total: number;
  limit: number;
  offset: number;
}

/** The list's filter in the read index's terms (the user by name resolved here, as the SQL path's subquery does); null when it matches nothing. */
async function listIndexFilterOf(db: Db, readIndex: RunReadIndex, { query, modelIds, hardwareIds }: ResolvedListQuery): Promise<IndexFilter | null> {
  const filter: IndexFilter = {
    modelIds,
    hardwareIds,
    hwClass: query.hwClass,
    kvCacheDtype: query.kvCacheDtype,
    attentionBackend: query.attentionBackend,
    gpuLayersAtLeast: query.gpuLayersMin,
    tensorParallelAtLeast: query.tensorParallelMin,
    specDecoding: query.specOnly ? true : undefined,
    mtpEnabled: query.mtpOnly ? true : undefined,
    created: createdWindowOf(query),
  };
  // userId wins over username; either wins over verified (as applyListFilters).
  if (query.userId) filter.userId = query.userId;
  else if (query.username) {
    const { username } = query;
    const userId = await readIndex.resolved(`username:${username}`, async () => {
      const user = await db('users').whereRaw('lower(username) = lower(?)', [username]).first('id');
      return (user?.id as string | undefined) ?? null;
    });
    if (!userId) return null;
    filter.userId = userId;
  } else filter.verified = query.verified;
  return filter;
}

/** The results list: one page (`viewerId` fills each run's `myEmoji`), or every match for exports. */
function listReads({ db, profile, readIndex }: Pick<ServiceDeps, 'db' | 'profile' | 'readIndex'>, reads: SpeedTestReads) {
  /** A page found and counted by the read index, newest first. */
  async function indexedList(index: RunIndex, resolved: ResolvedListQuery, viewerId: string | null): Promise<SpeedTestList> {
    const { query } = resolved;
    const page = { limit: query.limit, offset: query.offset };
    const filter = await listIndexFilterOf(db, readIndex ?? noReadIndex, resolved);
    if (!filter) return { benchmarks: [], total: 0, ...page };
    const { slots, total } = index.query({ filter, order: 'newest', offset: query.offset, limit: query.limit });
    return { benchmarks: await reads.indexedDocuments(index, slots, viewerId), total, ...page };
  }

  /**
   * The total from the count table when its filters are ones it keeps (class, verified,
   * the model tree, the hardware profiles; two at most, profiles never with models); null
   * when the runs must be counted.
   */
  function totalFromCountTable({ query, modelIds, hardwareIds }: ResolvedListQuery): Knex.QueryBuilder | null {
    const counted = new Set(['hfId', 'hwClass', 'verified', ...HARDWARE_LIST_FILTERS.map(([param]) => param), 'limit', 'offset', 'format']);
    if (Object.entries(query).some(([key, value]) => value !== undefined && !counted.has(key))) return null;
    const facts: CountFact[] = [];
    if (modelIds) facts.push(['modelId', modelIds]);
    if (hardwareIds) facts.push(['hardwareId', hardwareIds]);
    // The profiles already carry the class.
    else if (query.hwClass) facts.push(['hwClass', query.hwClass]);
    if (query.verified !== undefined) facts.push(['verified', String(query.verified)]);
    if (facts.length > 2 || (modelIds && hardwareIds)) return null;
    return reads.countTableTotal(facts);
  }

  return {
    async list(query: SpeedTestListQuery, viewerId: string | null = null, modelScope: ModelScope = 'tree'): Promise<SpeedTestList> {
      const page = { limit: query.limit, offset: query.offset };
      // The index first: a strict read catches up before names are resolved through it.
      const index = await readIndex?.current();
      const resolved = await resolveListQuery(db, query, readIndex, modelScope);
      if (matchesNothing(resolved)) return { benchmarks: [], total: 0, ...page };
      if (index) return indexedList(index, resolved, viewerId);
      const filter = (q: Knex.QueryBuilder) => applyListFilters(q, resolved);
      const fromTable = totalFromCountTable(resolved);
      if (!fromTable) {
        const [benchmarks, [{ total }]] = await Promise.all([
          reads.findDocuments(filter, page, viewerId),
          db('speed_test_runs as r').modify(filter).count<{ total: number }[]>('* as total'),
        ]);
        return { benchmarks, total, ...page };
      }
      const [{ total }] = (await fromTable) as { total: number }[];
      // A known total sizes the page, so the scan stops at its last run (as on the leaderboard).
      const size = Math.min(query.limit, Math.max(0, total - query.offset));
      const benchmarks = size > 0 ? await reads.findDocuments(filter, { ...page, limit: size }, viewerId) : [];
      return { benchmarks, total, ...page };
    },

    /** Every matching run, newest first, through a cursor: the csv/jsonl export of the list. */
    async *rows(query: SpeedTestListQuery): AsyncGenerator<SpeedTestRun> {
      const resolved = await resolveListQuery(db, query);
      if (matchesNothing(resolved)) return;
      const stream = reads
        .withDocuments()
        .select(reads.documentColumns(null))
        .modify((q) => applyListFilters(q, resolved))
        .orderBy([{ column: 'r.created_at', order: 'desc' }, { column: 'r.id', order: 'desc' }])
        .stream({ highWaterMark: 200 });
      try {
        for await (const row of stream) yield toSpeedTestRun(profile, row as SpeedTestDocumentRow);
      } finally {
        stream.destroy();
      }
    },
  };
}

/** The list as the API answers it, assembled from the stored documents. */
export function speedTestListJson(profile: RevisionProfile, list: SpeedTestList): string {
  return jsonObject({ ...list, benchmarks: jsonArray(list.benchmarks.map((row) => speedTestJson(profile, row))) });
}

/** The list's runs as objects, for the pages. */
export function speedTestListRuns(profile: RevisionProfile, list: SpeedTestList): SpeedTestRun[] {
  return list.benchmarks.map((row) => toSpeedTestRun(profile, row));
}

